"""bench_mcp's load: the clients, their calls and arguments, and the per-call tallies."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from django.core.management.base import CommandError

from agents.mcp.http import CPU_TIMING_HEADER
from workspaces.models import User, Workspace

PROTOCOL_VERSION = "2025-11-25"
MAX_ERROR_SAMPLES = 5
WARM_UP_ROUNDS = 4


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def percentile(sorted_values: list[float], fraction: float) -> float:
    """Nearest-rank percentile of an already sorted list (0 for an empty one)."""
    if not sorted_values:
        return 0.0
    rank = max(0, min(len(sorted_values) - 1, round(fraction * len(sorted_values)) - 1))
    return sorted_values[rank]


def server_timing(header: str) -> dict[str, float]:
    """``{"app": 4.1, "tool": 2.3}`` from ``Server-Timing: app;dur=4.1, tool;dur=2.3``."""
    durations: dict[str, float] = {}
    for metric in header.split(","):
        name, _, parameters = metric.strip().partition(";")
        for parameter in parameters.split(";"):
            key, _, value = parameter.strip().partition("=")
            if key == "dur":
                try:
                    durations[name] = float(value)
                except ValueError:
                    continue
    return durations


@dataclass
class Stats:
    latencies_ms: list[float] = field(default_factory=list)
    overheads_ms: list[float] = field(default_factory=list)
    overheads_cpu_ms: list[float] = field(default_factory=list)
    tool_cpu_ms: list[float] = field(default_factory=list)
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    cpu_seconds: float = 0.0
    by_tool: dict[str, int] = field(default_factory=dict)

    def timing(self, response: httpx.Response) -> None:
        """Our server-side overhead for this call: endpoint time minus tool handler time."""
        durations = server_timing(response.headers.get("server-timing", ""))
        durations |= server_timing(response.headers.get(CPU_TIMING_HEADER, ""))
        if "app" in durations and "tool" in durations:
            self.overheads_ms.append(durations["app"] - durations["tool"])
        if "cpu" in durations and "tool_cpu" in durations:
            self.overheads_cpu_ms.append(durations["cpu"])
            self.tool_cpu_ms.append(durations["tool_cpu"])

    def error(self, sample: str) -> None:
        self.errors += 1
        if len(self.error_samples) < MAX_ERROR_SAMPLES:
            self.error_samples.append(sample[:300])


@dataclass
class Target:
    workspace: Workspace
    user: User
    throwaway: bool


# --- Arguments ---------------------------------------------------------------------------


def _entity(described: dict[str, Any], name: str) -> int | None:
    for entity in described.get("entities", []):
        if entity["name"] == name or name in entity.get("aliases", []):
            return int(entity["entity_id"])
    return None


def search_arguments(slug: str, described: dict[str, Any]) -> list[dict[str, Any]]:
    """The rotation: what a lawyer asks of the Brenalis room (generic where names lack)."""
    brenalis = _entity(described, "Groupe Brenalis")
    hydrelle = _entity(described, "Hydrelle Énergie SA")
    if brenalis is None and described.get("entities"):
        brenalis = int(described["entities"][0]["entity_id"])
    calls: list[dict[str, Any]] = [
        {"filters": {"signature_date": {"after": "2025-01-01", "before": "2025-12-31"}}},
        {"filters": {"contract_types": ["commercial_lease"]}},
        {"filters": {"governing_law": {"in": ["droit suisse"]}}},
        {"filters": {"end_date": {"after": "2028-01-01"}}},
        {"limit": 5, "offset": 5},
        {"query": "période d'essai"},
        {"query": "article 4", "filters": {"document_ids": ["c03"]}},
        {"query": "exclusivité territoriale"},
        {"query": "limitation de responsabilité", "limit": 5},
    ]
    if brenalis is not None:
        calls += [
            {"filters": {"entity_ids": [brenalis], "end_date": {"before": "2026-12-31"}}},
            {"query": "changement de contrôle", "filters": {"entity_ids": [brenalis]}},
        ]
    if brenalis is not None and hydrelle is not None:
        calls.append({"filters": {"entity_ids": [hydrelle, brenalis]}})
    return [{"workspace": slug, **call} for call in calls]


def mix_arguments(slug: str, described: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """A lawyer's session, as (tool, arguments): listings and questions on the room, a
    contract read, the room described, the workspaces listed, the codes searched."""
    searches = [("search_data_room", call) for call in search_arguments(slug, described)]
    # Data-room contracts are c01, c02… (describe_data_room counts them).
    contracts = [f"c{n:02d}" for n in range(1, min(4, int(described.get("contracts", 1))) + 1)]
    reads = [("get_contract", {"workspace": slug, "contract_id": ref}) for ref in contracts]
    return [
        *searches,
        *reads,
        ("describe_data_room", {"workspace": slug}),
        ("list_workspaces", {}),
        ("find_duplicates", {"workspace": slug}),
    ]


# --- The load ----------------------------------------------------------------------------


def _rpc(call_id: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": call_id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }


def _problem(response: httpx.Response) -> str | None:
    """None for a successful tool result, else a short description of what went wrong."""
    if response.status_code != 200:
        return f"HTTP {response.status_code}: {response.text[:200]}"
    body = response.json()
    if "error" in body:
        return f"JSON-RPC error: {json.dumps(body['error'])[:200]}"
    result = body.get("result", {})
    if result.get("isError"):
        return f"tool error: {result['content'][0]['text'][:200]}"
    return None


async def _call(
    client: httpx.AsyncClient, call_id: int, tool: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    response = await client.post("/mcp", json=_rpc(call_id, tool, arguments))
    problem = _problem(response)
    if problem:
        raise CommandError(f"{tool} failed during warm-up: {problem}")
    result: dict[str, Any] = response.json()["result"]["structuredContent"]
    return result


def _rotation(tool: str, slug: str, described: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    if tool == "search_data_room":
        return [(tool, call) for call in search_arguments(slug, described)]
    if tool == "mix":
        return mix_arguments(slug, described)
    return [(tool, {"workspace": slug})]


async def _timed_call(
    client: httpx.AsyncClient,
    stats: Stats,
    call_id: int,
    tool: str,
    arguments: dict[str, Any],
    started: float,
) -> None:
    """One call; its latency counted from ``started`` (its scheduled time in an open loop, so
    a server falling behind shows as waiting, not as fewer calls)."""
    try:
        response = await client.post("/mcp", json=_rpc(call_id, tool, arguments))
        problem = _problem(response)
        stats.timing(response)
    except (httpx.HTTPError, ValueError) as exc:
        problem = f"{type(exc).__name__}: {exc}"
    stats.latencies_ms.append((time.perf_counter() - started) * 1000)
    stats.by_tool[tool] = stats.by_tool.get(tool, 0) + 1
    if problem:
        stats.error(problem)


async def run_load(
    *,
    base_url: str,
    raw_token: str,
    tool: str,
    slug: str,
    clients: int,
    seconds: float,
    max_calls: int,
    cpu_seconds: Callable[[], float],
    rate: float = 0.0,
) -> tuple[Stats, float, int]:
    """Closed loop (``rate`` 0: each client calls again as soon as answered, the saturation
    throughput) or open loop (each client calls ``rate`` times a second whatever the
    answers, the realistic load); ``tool`` "mix" rotates a lawyer's session of tools."""
    headers = {
        "Authorization": f"Bearer {raw_token}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": PROTOCOL_VERSION,
    }
    limits = httpx.Limits(max_connections=clients * 4, max_keepalive_connections=clients * 4)
    async with httpx.AsyncClient(
        base_url=base_url, headers=headers, limits=limits, timeout=60
    ) as client:
        described = await _call(client, 0, "describe_data_room", {"workspace": slug})
        rotation = _rotation(tool, slug, described)
        # Warm-up, not counted: the embedding model loads on each server process's first
        # query, and which process answers is uvicorn's choice: a few rounds, concurrently.
        await asyncio.gather(*(
            _call(client, 0, name, arguments) for name, arguments in rotation * WARM_UP_ROUNDS
        ))  # fmt: skip

        stats = Stats()
        issued = 0
        deadline = time.perf_counter() + seconds

        async def one_client(number: int) -> None:
            nonlocal issued
            position, pending = number, []
            next_at = time.perf_counter() + (number / clients) / rate if rate else 0.0
            while time.perf_counter() < deadline and issued < max_calls:
                issued += 1
                name, arguments = rotation[position % len(rotation)]
                position += 1
                if not rate:
                    await _timed_call(client, stats, issued, name, arguments, time.perf_counter())
                    continue
                await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
                pending.append(asyncio.create_task(
                    _timed_call(client, stats, issued, name, arguments, next_at)
                ))  # fmt: skip
                next_at += 1 / rate
            await asyncio.gather(*pending)

        cpu_before = cpu_seconds()
        started = time.perf_counter()
        await asyncio.gather(*(one_client(n) for n in range(clients)))
        elapsed = time.perf_counter() - started
        stats.cpu_seconds = cpu_seconds() - cpu_before
    return stats, elapsed, len(rotation)
