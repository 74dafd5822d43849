"""bench_web: N signed-in users browsing the pages a lawyer uses, against a live server.

    python manage.py bench_web --users 20 --seconds 60 --rate 1 --workers 2 --json

Starts uvicorn (as bench_mcp), imports the Brenalis data room into a throwaway workspace
(or uses ``--workspace``), signs each user in through the login form (session cookie, CSRF),
then each user asks for a page ``--rate`` times a second whatever the answers (open loop:
latency counted from the scheduled time): the dashboard, the workspace's documents, the
search page with a question and with filters, the viewer of a contract.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from django.core.management.base import CommandError

from lab.agents.bench._load import free_port
from lab.agents.bench.mcp import (
    Note,
    _existing,
    _import_brenalis,
    _milliseconds,
    _remove,
    _start_server,
    _stop_server,
    _wait_ready,
    process_cpu_seconds,
)
from workspaces.models import Role
from workspaces.services import membership_set, user_get_or_create

CSRF_RE = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def _pages(slug: str) -> list[str]:
    return [
        "/",
        f"/w/{slug}/documents/",
        f"/w/{slug}/search/?q=dur%C3%A9e+du+bail",
        f"/w/{slug}/search/?q=limitation+de+responsabilit%C3%A9",
        f"/w/{slug}/search/?type=commercial_lease",
        f"/w/{slug}/documents/c01/",
        f"/w/{slug}/documents/c04/",
    ]


async def _signed_in(base_url: str, email: str, password: str) -> httpx.AsyncClient:
    client = httpx.AsyncClient(base_url=base_url, timeout=60, follow_redirects=False)
    page = await client.get("/login/")
    token = CSRF_RE.search(page.text)
    if token is None:
        raise CommandError("The login page has no CSRF token.")
    answer = await client.post(
        "/login/",
        data={"username": email, "password": password, "csrfmiddlewaretoken": token.group(1)},
        headers={"Referer": f"{base_url}/login/"},
    )
    if answer.status_code != 302 or "/login/" in answer.headers.get("location", ""):
        raise CommandError(f"Signing in failed (HTTP {answer.status_code}).")
    return client


async def _browse(
    base_url: str,
    email: str,
    password: str,
    *,
    users: int,
    seconds: float,
    rate: float,
    pages: list[str],
    cpu: Any,
) -> dict[str, Any]:
    clients = [await _signed_in(base_url, email, password) for _ in range(users)]
    for client in clients[:1]:  # warm-up (the encoder loads on the first question)
        for page in pages:
            await client.get(page)
    latencies: list[float] = []
    errors: list[str] = []

    async def fetch(client: httpx.AsyncClient, page: str, scheduled: float) -> None:
        try:
            response = await client.get(page)
            if response.status_code != 200:
                errors.append(f"{page}: HTTP {response.status_code}")
        except httpx.HTTPError as exc:
            errors.append(f"{page}: {type(exc).__name__}")
        latencies.append((time.perf_counter() - scheduled) * 1000)

    async def user(number: int) -> None:
        pending, position = [], number
        next_at = time.perf_counter() + number / (users * rate)
        deadline = time.perf_counter() + seconds
        while next_at < deadline:
            await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
            page = pages[position % len(pages)]
            pending.append(asyncio.create_task(fetch(clients[number], page, next_at)))
            position += 1
            next_at += 1 / rate
        await asyncio.gather(*pending)

    cpu_before, started = cpu(), time.perf_counter()
    await asyncio.gather(*(user(n) for n in range(users)))
    elapsed, cpu_used = time.perf_counter() - started, cpu() - cpu_before
    for client in clients:
        await client.aclose()
    return {
        "requests": len(latencies),
        "seconds": round(elapsed, 1),
        "latency_ms": _milliseconds(latencies, p99=True),
        "server_cpu_ms_per_request": round(cpu_used * 1000 / len(latencies), 1) if latencies else 0,
        "errors": len(errors),
        "error_samples": errors[:5],
    }


def run(options: dict[str, Any], note: Note) -> dict[str, Any]:
    if not 1 <= options["users"] <= 200 or not 0 < options["rate"] <= 20:
        raise CommandError("--users must be 1..200 and --rate 0..20.")
    target = (
        _existing(options["workspace"], options["user"])
        if options["workspace"]
        else _import_brenalis(note)
    )
    # A user of its own, a viewer of the room, disabled afterwards: nobody's password changes.
    password = secrets.token_urlsafe(18)
    reader, _ = user_get_or_create(
        email=f"bench-web-{secrets.token_hex(3)}@lexroom.local",
        firm=target.workspace.firm,
        actor_label="system:bench",
    )
    reader.set_password(password)
    reader.save(update_fields=["password"])
    membership_set(
        workspace=target.workspace, user=reader, role=Role.VIEWER, actor_label="system:bench"
    )
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    with tempfile.NamedTemporaryFile(prefix="bench_web-", suffix=".log", delete=False) as log:
        log_path = Path(log.name)
    server = _start_server(port, options["workers"], log_path)
    try:
        _wait_ready(base_url, server, log_path)
        note(f"server on {base_url}; {options['users']} users for {options['seconds']} s")
        result = asyncio.run(_browse(
            base_url, reader.email, password, users=options["users"],
            seconds=options["seconds"], rate=options["rate"],
            pages=_pages(target.workspace.slug), cpu=lambda: process_cpu_seconds(server.pid),
        ))  # fmt: skip
    finally:
        _stop_server(server)
        reader.set_unusable_password()
        reader.is_active = False
        reader.save(update_fields=["password", "is_active"])
        if target.throwaway:
            _remove(target)
    return {"users": options["users"], "rate_per_user": options["rate"],
            "workers": options["workers"], "pages": _pages("<slug>"), **result}  # fmt: skip
