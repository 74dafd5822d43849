"""bench_fairness's two sides: firm B's normal session, timed per action, and firm A's abuse.

Everything goes over HTTP to the live server, as a browser, an MCP client or a REST script
would: B searches, reads a contract in the viewer, calls MCP tools, searches case law and
uploads a small text file (timed until a worker has processed it); A opens many live streams
of an answer, uploads PDFs made to be slow to read, floods the case-law search and imports a
playbook whose pattern would explode a backtracking regex engine.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import re
import time
import zlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

from lab.agents.bench._load import PROTOCOL_VERSION

CSRF_RE = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
# Nested counted repetitions: what a backtracking engine compiles to gigabytes.
REGEX_BOMB = "(?:(?:b{200}){200}){200}"
SEARCH_QUERIES = (
    "durée du bail",
    "limitation de responsabilité",
    "confidentialité",
    "résiliation anticipée",
    "loyer",
    "droit applicable",
)
UPLOAD_POLL_S = 0.25
B_ACTIONS = ("search", "viewer", "mcp_tool", "case_law")


@dataclass
class Tally:
    """Latencies per action (ms) and answers by status, for one side of one phase."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    statuses: Counter[str] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)

    def add(self, action: str, started: float, status: int | str) -> None:
        self.latencies.setdefault(action, []).append((time.perf_counter() - started) * 1000)
        self.statuses[f"{action}:{status}"] += 1

    def problem(self, text: str) -> None:
        if len(self.samples) < 8:
            self.samples.append(text[:300])

    def server_errors(self) -> int:
        return sum(n for key, n in self.statuses.items() if key.rsplit(":", 1)[1].startswith("5"))


def hostile_pdf(*, pages: int = 300, operators: int = 100_000) -> bytes:
    """``pages`` pages sharing one Flate stream of ``operators`` tiny text-showing operators:
    a few kilobytes on disk, seconds of pypdf's text extraction per page (a reader that
    extracts page after page parses the stream ``pages`` times). The ingestion tests and
    bench_fairness both upload it."""
    stream = zlib.compress(b"BT /F1 1 Tf (a) Tj ET\n" * operators, 9)
    kids = b" ".join(b"%d 0 R" % (5 + page) for page in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % pages,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    page = (
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>"
    )
    objects += [page] * pages
    out = io.BytesIO(b"%PDF-1.7\n")
    out.seek(0, io.SEEK_END)
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    out.write(b"".join(b"%010d 00000 n \n" % offset for offset in offsets))
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\n" % (len(objects) + 1))
    out.write(b"startxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


def mcp_client(base_url: str, raw_token: str, *, connections: int = 64) -> httpx.AsyncClient:
    headers = {
        "Authorization": f"Bearer {raw_token}",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": PROTOCOL_VERSION,
    }
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    return httpx.AsyncClient(base_url=base_url, headers=headers, limits=limits, timeout=120)


async def signed_in(base_url: str, email: str, password: str) -> httpx.AsyncClient:
    """A browser-like client with a session (the login form, CSRF and all)."""
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
    client = httpx.AsyncClient(base_url=base_url, timeout=120, limits=limits)
    page = await client.get("/login/")
    token = CSRF_RE.search(page.text)
    answer = await client.post(
        "/login/",
        data={
            "username": email,
            "password": password,
            "csrfmiddlewaretoken": token.group(1) if token else "",
        },
        headers={"Referer": f"{base_url}/login/"},
    )
    if answer.status_code != 302 or "/login/" in answer.headers.get("location", ""):
        raise RuntimeError(f"Signing in as {email} failed (HTTP {answer.status_code}).")
    return client


async def tool_call(client: httpx.AsyncClient, tool: str, arguments: dict[str, Any]) -> str:
    """``ok``, ``tool-error`` or the HTTP status of an MCP ``tools/call``."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    response = await client.post("/mcp", json=body)
    if response.status_code != 200:
        return str(response.status_code)
    result = response.json().get("result") or {}
    return "tool-error" if result.get("isError") else "ok"


# --- Firm B: a lawyer's normal session -----------------------------------------------------


@dataclass
class FirmB:
    base_url: str
    slug: str
    raw_tokens: list[str]
    email: str
    password: str


async def _b_action(tally: Tally, action: str, coroutine: Any) -> None:
    started = time.perf_counter()
    try:
        status = await coroutine
    except httpx.HTTPError as exc:
        status = type(exc).__name__
        tally.problem(f"{action}: {status}")
    tally.add(action, started, status)


def _b_calls(b: FirmB, n: int) -> dict[str, Any]:
    """Call ``n`` of each of B's actions (its arguments rotate)."""
    query = SEARCH_QUERIES[n % len(SEARCH_QUERIES)]
    contract = f"c0{1 + n % 4}"
    return {
        "search": ("search_data_room", {"workspace": b.slug, "query": query, "limit": 5}),
        "mcp_tool": ("get_contract", {"workspace": b.slug, "contract_id": contract}),
        # A word no earlier search used: the site is asked, not the cache.
        "case_law": ("search_case_law", {"query": f"éolienne {n}", "limit": 5}),
        "viewer": f"/w/{b.slug}/documents/{contract}/",
    }


async def _b_loop(b: FirmB, tally: Tally, action: str, number: int, deadline: float) -> None:
    """One person repeating one action, with a pause to read between two: each action has
    its own loop, so a slow one (case law waits its turn at the site) takes no samples from
    the others."""
    # Each of B's people has a token of their own (the per-credential caps are per person).
    mcp = mcp_client(b.base_url, b.raw_tokens[number % len(b.raw_tokens)], connections=2)
    browser = await signed_in(b.base_url, b.email, b.password) if action == "viewer" else None
    counter = itertools.count(number * 10_000)
    try:
        while time.perf_counter() < deadline:
            call = _b_calls(b, next(counter))[action]
            if browser is not None:
                await _b_action(tally, action, _status(browser.get(call)))
            else:
                await _b_action(tally, action, tool_call(mcp, *call))
            await asyncio.sleep(0.5)  # a person reads before the next click
    finally:
        await mcp.aclose()
        if browser is not None:
            await browser.aclose()


async def _status(request: Any) -> int:
    response = await request
    return int(response.status_code)


async def b_upload(b: FirmB, tally: Tally, *, timeout_s: float) -> float | None:
    """Upload a small text file; seconds until its batch is processed (None: not in time)."""
    headers = {"Authorization": f"Bearer {b.raw_tokens[0]}"}
    async with httpx.AsyncClient(base_url=b.base_url, headers=headers, timeout=60) as client:
        started = time.perf_counter()
        name = f"note-{time.time_ns()}.txt"
        text = f"Note de service {name}. Le loyer est payable trimestriellement.".encode()
        response = await client.post(
            f"/api/workspaces/{b.slug}/documents/upload/", files={"files": (name, text)}
        )
        tally.add("upload", started, response.status_code)
        if response.status_code != 202:
            tally.problem(f"upload: HTTP {response.status_code} {response.text[:200]}")
            return None
        batch = response.json()["batch_id"]
        while time.perf_counter() - started < timeout_s:
            state = await client.get(f"/api/workspaces/{b.slug}/batches/{batch}/")
            if state.status_code == 200 and state.json().get("done"):
                return round(time.perf_counter() - started, 2)
            await asyncio.sleep(UPLOAD_POLL_S)
    return None


async def firm_b_session(
    b: FirmB, *, clients: int, seconds: float, upload_timeout_s: float
) -> tuple[Tally, float | None]:
    tally = Tally()
    deadline = time.perf_counter() + seconds
    upload = asyncio.create_task(b_upload(b, tally, timeout_s=upload_timeout_s))
    await asyncio.gather(*(
        _b_loop(b, tally, action, n, deadline)
        for action in B_ACTIONS
        for n in range(clients)
    ))  # fmt: skip
    return tally, await upload


# --- Firm A: every abuse at once ------------------------------------------------------------


@dataclass
class FirmA:
    base_url: str
    slug: str
    raw_token: str
    viewer_email: str
    admin_email: str
    password: str
    turn_id: int


async def _hold_stream(
    client: httpx.AsyncClient, url: str, tally: Tally, stop: asyncio.Event
) -> None:
    started = time.perf_counter()
    try:
        async with client.stream("GET", url) as response:
            tally.add("stream_open", started, response.status_code)
            if response.status_code != 200:
                return
            async for _chunk in response.aiter_raw():
                if stop.is_set():
                    return
    except httpx.HTTPError as exc:
        tally.add("stream_open", started, type(exc).__name__)


async def _streams(a: FirmA, tally: Tally, count: int, stop: asyncio.Event) -> None:
    client = await signed_in(a.base_url, a.viewer_email, a.password)
    url = f"/w/{a.slug}/chat/turns/{a.turn_id}/events/"
    try:
        tasks = [asyncio.create_task(_hold_stream(client, url, tally, stop)) for _ in range(count)]
        await stop.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        await client.aclose()


async def _hostile_uploads(a: FirmA, tally: Tally, count: int) -> list[int]:
    """Upload ``count`` slow PDFs (one batch each); their batch ids."""
    headers = {"Authorization": f"Bearer {a.raw_token}"}
    batches = []
    async with httpx.AsyncClient(base_url=a.base_url, headers=headers, timeout=60) as client:
        for n in range(count):
            started = time.perf_counter()
            pdf = hostile_pdf(pages=300 + n)  # distinct bytes: not deduplicated
            response = await client.post(
                f"/api/workspaces/{a.slug}/documents/upload/",
                files={"files": (f"scan-{n}.pdf", pdf, "application/pdf")},
            )
            tally.add("hostile_upload", started, response.status_code)
            if response.status_code == 202:
                batches.append(int(response.json()["batch_id"]))
    return batches


async def _case_law_flood(a: FirmA, tally: Tally, parallel: int, stop: asyncio.Event) -> None:
    mcp = mcp_client(a.base_url, a.raw_token, connections=parallel)
    counter = itertools.count()

    async def one() -> None:
        while not stop.is_set():
            started = time.perf_counter()
            try:
                status = await tool_call(
                    mcp, "search_case_law", {"query": f"urbanisme {next(counter)}"}
                )
            except httpx.HTTPError as exc:
                status = type(exc).__name__
            tally.add("case_law_flood", started, status)
            if status not in {"ok", "tool-error"}:
                await asyncio.sleep(1.0)  # a 429's Retry-After, roughly

    try:
        await asyncio.gather(*(one() for _ in range(parallel)))
    finally:
        await mcp.aclose()


async def _regex_bomb(a: FirmA, tally: Tally) -> None:
    """Import a playbook whose rule pattern is a regex bomb, through the admin's form."""
    client = await signed_in(a.base_url, a.admin_email, a.password)
    try:
        url = "/admin/compliance/playbook/import/"
        page = await client.get(url)
        token = CSRF_RE.search(page.text)
        playbook = (
            "key: bomb\ntitle: Bomb\nlanguage: fr\nrules:\n"
            "  - key: r1\n    title: R1\n    clause_type: governing_law\n"
            f"    kind: regex\n    severity: high\n    must: appear\n"
            f'    pattern: "{REGEX_BOMB}"\n'
        )
        started = time.perf_counter()
        response = await client.post(
            url,
            data={"text": playbook, "csrfmiddlewaretoken": token.group(1) if token else ""},
            headers={"Referer": f"{a.base_url}{url}"},
        )
        tally.add("regex_bomb_import", started, response.status_code)
    except httpx.HTTPError as exc:
        tally.add("regex_bomb_import", time.perf_counter(), type(exc).__name__)
    finally:
        await client.aclose()


async def firm_a_abuse(
    a: FirmA, tally: Tally, stop: asyncio.Event, *, streams: int, pdfs: int, case_law: int
) -> list[int]:
    """Every abuse until ``stop``; the hostile uploads' batch ids."""
    batches = await _hostile_uploads(a, tally, pdfs)
    await asyncio.gather(
        _streams(a, tally, streams, stop),
        _case_law_flood(a, tally, case_law, stop),
        _regex_bomb(a, tally),
    )
    return batches
