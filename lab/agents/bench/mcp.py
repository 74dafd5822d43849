"""bench_mcp: a bounded MCP load test on loopback, with the numbers as one JSON object.

    python manage.py bench_mcp --clients 50 --seconds 60 --json

Starts uvicorn on 127.0.0.1 and a free port (rate limiter off: we measure the server, not
the limiter), creates a token (revoked at the end), then N concurrent clients POST
``tools/call`` with a rotating set of realistic arguments (filters-only listings and ranked
queries, the Brenalis reference questions) until the time is up or ``--max-calls`` is
reached. Without ``--workspace`` the Brenalis data room is imported into a throwaway
workspace (and firm), removed afterwards.

The server runs with ``LEXROOM_SERVER_TIMING=1``: each response says how long our endpoint
took and how long the tool handlers took, so ``overhead_ms`` (protocol, auth, tenant scope,
audit: everything but the tool's own work) is measured per call, on the server's clock.
``server_cpu_ms_per_call`` is the server processes' CPU time over the timed calls.

Under many clients on few cores, ``overhead_ms`` is mostly waiting (for a worker thread, for
the GIL, for a core), not work. What the server really spends outside the tool per call:
``overhead_cpu_ms``, the worker threads' CPU time (``time.thread_time()``: token check,
registry, scope, audit) less the tool's, and ``server_cpu_outside_tool_ms_per_call``, the
server processes' CPU per call less the tools' mean, which adds the event loop's part (HTTP,
the SDK's JSON-RPC and session). Postgres's own CPU is in neither (another process tree).
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import psutil
from django.conf import settings
from django.core.management.base import CommandError

from documents.pipeline import run_in_process, store_dataroom
from documents.services import workspace_purge_throwaway
from lab.agents.bench._load import Stats, Target, free_port, percentile, run_load, server_timing
from workspaces.models import Membership, Role, User, Workspace
from workspaces.services import firm_get_or_create, user_get_or_create, workspace_create
from workspaces.tenancy import workspace_scope
from workspaces.tokens import token_create, token_revoke

BRENALIS = Path(settings.BASE_DIR).parent / "shared" / "data" / "dataroom-brenalis"
READY_TIMEOUT_S = 90


Note = Callable[[str], None]

__all__ = ["run", "server_timing"]


# --- Setup and teardown ------------------------------------------------------------------


def _import_brenalis(note: Note) -> Target:
    path = BRENALIS / "exemple_data_room.json"
    if not path.exists():
        raise CommandError(f"{path} is missing: pass --workspace SLUG of an indexed room.")
    suffix = secrets.token_hex(3)
    firm, _ = firm_get_or_create(name=f"Lexroom Bench {suffix}")
    user, _ = user_get_or_create(
        email=f"bench-{suffix}@lexroom.local", firm=firm, actor_label="system:bench"
    )
    workspace, _ = workspace_create(
        firm=firm, slug=f"bench-mcp-{suffix}", title="Bench MCP (Brenalis)", owner=user
    )
    note(f"importing Brenalis into {workspace.slug} (removed afterwards)")
    with workspace_scope(workspace):
        batch, _results = store_dataroom(workspace=workspace, path=path, user=user)
    run_in_process(workspace=workspace, batch=batch)
    return Target(workspace, user, throwaway=True)


def _existing(slug: str, email: str | None) -> Target:
    if email:
        user = User.objects.filter(email=email.strip().lower(), is_active=True).first()
        if user is None:
            raise CommandError(f"No active user {email}.")
        workspace = Workspace.objects.filter(firm_id=user.firm_id, slug=slug).first()
        if workspace is None:
            raise CommandError(f"No workspace {slug!r} in {user.email}'s firm.")
        return Target(workspace, user, throwaway=False)
    workspaces = list(Workspace.objects.filter(slug=slug))
    if len(workspaces) != 1:
        raise CommandError(f"{len(workspaces)} workspaces named {slug!r}: pass --user EMAIL.")
    workspace = workspaces[0]
    with workspace_scope(workspace):
        owner = (
            Membership.objects.filter(workspace=workspace, role=Role.OWNER)
            .select_related("user")
            .order_by("pk")
            .first()
        )
    if owner is None:
        raise CommandError(f"{slug} has no owner: pass --user EMAIL.")
    return Target(workspace, owner.user, throwaway=False)


def _remove(target: Target) -> None:
    workspace_purge_throwaway(workspace=target.workspace)


def _wait_ready(base_url: str, server: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise CommandError(f"The server exited:\n{log_path.read_text()[-2000:]}")
        try:
            # No token: a 401 proves the whole stack (routing, MCP app, database) answers.
            if httpx.post(f"{base_url}/mcp", json={}, timeout=2).status_code == 401:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise CommandError(f"The server did not answer within {READY_TIMEOUT_S} s.")


def _start_server(
    port: int, workers: int, log_path: Path, *, rate_limited: bool = False
) -> subprocess.Popen[bytes]:
    # Rate limiter off unless asked: we measure the server, not the limiter (bench_fairness
    # keeps it, as an install has it). Server-Timing on: the overhead per call comes from
    # the server's own clock.
    # The server answers on 127.0.0.1: allowed whatever ALLOWED_HOSTS the install has (a
    # production one names only its domain, and /mcp would answer 421).
    hosts = ",".join(dict.fromkeys([*settings.ALLOWED_HOSTS, "127.0.0.1"]))
    env = {
        **os.environ,
        "LEXROOM_TOOL_RATE_PER_MINUTE": str(settings.LEXROOM_TOOL_RATE_PER_MINUTE)
        if rate_limited
        else "0",
        # Fifty clients share one token here: the per-credential caps would measure themselves.
        "LEXROOM_REQUESTS_PER_SECOND": str(settings.LEXROOM_REQUESTS_PER_SECOND)
        if rate_limited
        else "0",
        "LEXROOM_REQUESTS_PER_CREDENTIAL": str(settings.LEXROOM_REQUESTS_PER_CREDENTIAL)
        if rate_limited
        else "0",
        "LEXROOM_SERVER_TIMING": "1",
        "ALLOWED_HOSTS": hosts,
    }
    with log_path.open("wb") as log:
        return subprocess.Popen(  # noqa: S603 - fixed argv, loopback only
            [
                sys.executable,
                "-m",
                "uvicorn",
                "config.asgi:application",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--workers",
                str(workers),
                "--no-access-log",
                # Longer than any pause between two calls of one client: with uvicorn's 5 s
                # default, a pooled connection closed by the server as the client reuses it
                # shows up as a spurious ReadError under heavy load.
                "--timeout-keep-alive",
                "120",
                "--log-level",
                "warning",
            ],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def _stop_server(server: subprocess.Popen[bytes]) -> None:
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU time of ``pid`` and its children (uvicorn's workers), so far."""
    try:
        root = psutil.Process(pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0.0
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.Error:
            continue  # a worker that just exited
        total += times.user + times.system
    return total


def _milliseconds(values: list[float], *, p99: bool = False) -> dict[str, float]:
    ordered = sorted(values)
    summary = {
        "p50": round(percentile(ordered, 0.50), 1),
        "p95": round(percentile(ordered, 0.95), 1),
    }
    if p99:
        summary["p99"] = round(percentile(ordered, 0.99), 1)
        summary["max"] = round(ordered[-1], 1) if ordered else 0.0
    return summary


def _outside_tool(stats: Stats, calls: int) -> float:
    """The server processes' CPU per call less the tools' own (mean): what the event loop
    (HTTP, the SDK's JSON-RPC) and the worker threads spend around the tool."""
    if not calls or not stats.tool_cpu_ms:
        return 0.0
    tool_mean = sum(stats.tool_cpu_ms) / len(stats.tool_cpu_ms)
    return round(stats.cpu_seconds * 1000 / calls - tool_mean, 2)


def run(options: dict[str, Any], note: Note) -> dict[str, Any]:
    """Set up, load the server for ``--seconds``, tear down; the report as a dict."""
    if not 1 <= options["clients"] <= 1000 or not 0 < options["seconds"] <= 3600:
        raise CommandError("--clients must be 1..1000 and --seconds 0..3600.")
    # One line per request from httpx would drown the report's progress lines.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    target = (
        _existing(options["workspace"], options["user"])
        if options["workspace"]
        else _import_brenalis(note)
    )
    token, raw = token_create(
        user=target.user, name="bench_mcp", workspaces=[target.workspace], expires_days=1
    )
    port = options["port"] or free_port()
    base_url = f"http://127.0.0.1:{port}"
    with tempfile.NamedTemporaryFile(prefix="bench_mcp-", suffix=".log", delete=False) as log:
        log_path = Path(log.name)
    server = _start_server(port, options["workers"], log_path)
    try:
        _wait_ready(base_url, server, log_path)
        note(f"server on {base_url}; {options['clients']} clients for {options['seconds']} s")
        stats, elapsed, variants = asyncio.run(
            run_load(
                base_url=base_url,
                raw_token=raw,
                tool=options["tool"],
                slug=target.workspace.slug,
                clients=options["clients"],
                seconds=options["seconds"],
                max_calls=options["max_calls"],
                cpu_seconds=lambda: process_cpu_seconds(server.pid),
                rate=options.get("rate") or 0.0,
            )
        )
    finally:
        _stop_server(server)
        token_revoke(token=token, actor=target.user)
        if target.throwaway:
            _remove(target)
    return _report(options, stats, elapsed, variants, target, log_path)


def _report(
    options: dict[str, Any],
    stats: Stats,
    elapsed: float,
    variants: int,
    target: Target,
    log_path: Path,
) -> dict[str, Any]:
    calls = len(stats.latencies_ms)
    return {
        "clients": options["clients"],
        "seconds": round(elapsed, 1),
        "calls": calls,
        "calls_per_s": round(calls / elapsed, 1) if elapsed else 0.0,
        "latency_ms": _milliseconds(stats.latencies_ms, p99=True),
        "overhead_ms": _milliseconds(stats.overheads_ms),
        "server_cpu_ms_per_call": round(stats.cpu_seconds * 1000 / calls, 2) if calls else 0.0,
        "overhead_cpu_ms": _milliseconds(stats.overheads_cpu_ms),
        "server_cpu_outside_tool_ms_per_call": _outside_tool(stats, calls),
        "errors": stats.errors,
        "error_samples": stats.error_samples,
        "tool": options["tool"],
        "mode": f"open loop, {options['rate']} call/s per client"
        if options.get("rate")
        else "closed loop (saturation)",
        "calls_by_tool": stats.by_tool,
        "workspace": target.workspace.slug,
        "argument_variants": variants,
        "workers": options["workers"],
        "server_log": str(log_path),
    }
