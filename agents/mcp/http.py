"""MCP over streamable HTTP at ``/mcp``: bearer tokens, stateless, JSON responses.

Every request passes, in this order, before the SDK sees it:

1. ``Host`` against ``ALLOWED_HOSTS`` (Django's own matching, so ``.example.com`` and the
   DEBUG defaults mean what they mean for pages) → 421. This is the DNS-rebinding guard: a
   page on ``evil.example`` that re-points its name at 127.0.0.1 still sends its own Host.
2. ``Origin``, when a browser sends one: same origin, ``CSRF_TRUSTED_ORIGINS``, or a host
   allowed by ``ALLOWED_HOSTS`` (the ``*`` wildcard excepted) → otherwise 403.
3. Body size (``LEXROOM_MCP_MAX_BODY_BYTES``, 1 MiB by default) → 413.
4. ``Authorization: Bearer lxr_…`` checked on every request → 401 with ``WWW-Authenticate``.

We run these checks ourselves rather than through the SDK's ``TransportSecuritySettings``:
its host patterns are exact strings or ``host:*``, which cannot express Django's
``ALLOWED_HOSTS`` (leading-dot subdomains, the DEBUG localhost defaults), and reading the
settings per request keeps one source of truth. The SDK still checks ``Content-Type``, the
``Accept`` header and the JSON-RPC envelope, and answers protocol errors as JSON-RPC errors.

With ``LEXROOM_SERVER_TIMING=1`` (off by default; ``bench_mcp`` sets it) every response carries
``Server-Timing: app;dur=…, tool;dur=…``: milliseconds in this endpoint and in tool handlers,
so a client can tell our overhead (app - tool) from the tools' own work. Beside it,
``Lexroom-CPU-Timing: cpu;dur=…, tool_cpu;dur=…`` (same syntax): the worker threads' CPU time
outside the tool (token check, registry, scope, audit) and the tool's own, which queueing for
threads or cores does not inflate.

Stateless mode: each POST is a complete exchange, so any web process can answer any request
and nothing has to be shared between workers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import deque
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.to_thread
from django.conf import settings
from django.http.request import split_domain_port, validate_host
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import Message, Receive, Scope, Send

from agents.mcp.server import (
    CALLER_SCOPE_KEY,
    Caller,
    authenticate,
    build_server,
    close_kept_connections,
    run_in_thread,
)
from core.metrics import stage_timings

logger = logging.getLogger(__name__)

# The CPU side of Server-Timing (see the module docstring), read by bench_mcp.
CPU_TIMING_HEADER = "lexroom-cpu-timing"

# Strong references to the lazily started managers' tasks (asyncio keeps only weak ones).
_background_tasks: set[asyncio.Task[None]] = set()


def max_body_bytes() -> int:
    # A JSON-RPC tools/call is a few kilobytes; the 1 MiB default leaves room for long
    # queries and chunk-id lists while keeping one request from holding much memory.
    return int(settings.LEXROOM_MCP_MAX_BODY_BYTES)


def _allowed_hosts() -> list[str]:
    # Django's HttpRequest.get_host() accepts the localhost names when DEBUG is on and
    # ALLOWED_HOSTS is empty; /mcp follows the same rule.
    hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not hosts:
        hosts = [".localhost", "127.0.0.1", "[::1]"]
    return hosts


def host_allowed(host: str) -> bool:
    domain, _port = split_domain_port(host)
    return bool(domain) and validate_host(domain, _allowed_hosts())


def origin_allowed(origin: str, host: str) -> bool:
    if origin in settings.CSRF_TRUSTED_ORIGINS:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        return False  # "null" (sandboxed frames, file://) and anything odd
    if parts.netloc == host:
        return True  # same origin
    # "*" turns Host checking off; it must not also let every web page in.
    explicit = [h for h in _allowed_hosts() if h != "*"]
    return bool(parts.hostname) and validate_host(parts.hostname or "", explicit)


def _headers(scope: Scope) -> dict[str, str]:
    # Repeated headers keep their first value; that is all any of these checks needs.
    headers: dict[str, str] = {}
    for key, value in scope.get("headers", []):
        headers.setdefault(key.decode("latin-1").lower(), value.decode("latin-1"))
    return headers


async def _json_error(
    send: Send, status: int, error: str, message: str, extra_headers: list[tuple[bytes, bytes]]
) -> None:
    body = json.dumps({"error": error, "message": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *extra_headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _bearer(headers: dict[str, str]) -> str | None:
    scheme, _, value = headers.get("authorization", "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def _with_server_timing(send: Send, started: float, totals: dict[str, float]) -> Send:
    """``send`` that adds ``Server-Timing: app;dur=…, tool;dur=…`` to the response head:
    milliseconds since the request came in, and in tool handlers."""

    async def timed(message: Message) -> None:
        if message["type"] == "http.response.start":
            app_ms = (time.perf_counter() - started) * 1000
            tool_ms = totals.get("tool", 0.0) * 1000
            # CPU time of the worker threads outside the tool (token check, registry, scope,
            # audit), and the tool's own: unlike app - tool, not inflated by queueing.
            tool_cpu_ms = totals.get("tool_cpu", 0.0) * 1000
            cpu_ms = totals.get("worker_cpu", 0.0) * 1000 - tool_cpu_ms
            value = f"app;dur={app_ms:.2f}, tool;dur={tool_ms:.2f}"
            cpu = f"cpu;dur={cpu_ms:.2f}, tool_cpu;dur={tool_cpu_ms:.2f}"
            headers = [
                *message.get("headers", []),
                (b"server-timing", value.encode()),
                (CPU_TIMING_HEADER.encode(), cpu.encode()),
            ]
            message = {**message, "headers": headers}
        await send(message)

    return timed


class _BodyTooLarge(Exception):
    pass


async def _read_body(receive: Receive, limit: int) -> tuple[bytes, list[Message]]:
    """The whole body (at most ``limit`` bytes) and any message that followed it."""
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return bytes(body), [message]  # http.disconnect: let the SDK see it
        body.extend(message.get("body", b""))
        if len(body) > limit:
            raise _BodyTooLarge
        if not message.get("more_body", False):
            return bytes(body), []


def _caller_from_request(ctx: ServerRequestContext[Any, Any]) -> Caller | None:
    request = ctx.request
    scope = getattr(request, "scope", None)
    caller = scope.get(CALLER_SCOPE_KEY) if isinstance(scope, dict) else None
    return caller if isinstance(caller, Caller) else None


class McpHttpApp:
    """The ASGI app for ``/mcp`` (see the module docstring); also runs the ASGI lifespan."""

    def __init__(self) -> None:
        self.server: Server[Any] = build_server(resolve_caller=_caller_from_request)
        self._manager: StreamableHTTPSessionManager | None = None
        self._lazy_start: anyio.Lock | None = None

    def _new_manager(self) -> StreamableHTTPSessionManager:
        # A manager runs once; each lifespan (a test may start several servers) gets a new one.
        return StreamableHTTPSessionManager(
            app=self.server,
            stateless=True,
            json_response=True,
            # Host and Origin are checked above with Django's rules; see the module docstring.
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
            max_request_body_size=max_body_bytes(),
        )

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run the SDK's session manager (its task group) for the duration of the block."""
        manager = self._new_manager()
        async with manager.run():
            self._manager = manager
            try:
                yield
            finally:
                self._manager = None
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(close_kept_connections)

    async def lifespan(self, scope: Scope, receive: Receive, send: Send) -> None:
        """ASGI lifespan: start the session manager at startup, stop it at shutdown."""
        message = await receive()
        if message["type"] != "lifespan.startup":
            return
        try:
            async with self.running():
                await send({"type": "lifespan.startup.complete"})
                while (await receive())["type"] != "lifespan.shutdown":
                    pass
        except Exception as exc:
            logger.exception("MCP session manager failed")
            await send({"type": "lifespan.startup.failed", "message": str(exc)})
            return
        await send({"type": "lifespan.shutdown.complete"})

    async def _ensure_manager(self) -> StreamableHTTPSessionManager:
        # Servers without ASGI lifespan (or tests calling the app directly): start the manager
        # in a task of its own on first use. It then lives as long as the event loop.
        if self._manager is not None:
            return self._manager
        if self._lazy_start is None:
            self._lazy_start = anyio.Lock()
        async with self._lazy_start:
            if self._manager is None:
                started = anyio.Event()

                async def hold() -> None:
                    async with self.running():
                        started.set()
                        await anyio.sleep_forever()

                task = asyncio.get_running_loop().create_task(hold())
                _background_tasks.add(task)
                task.add_done_callback(_background_tasks.discard)
                await started.wait()
        assert self._manager is not None  # noqa: S101 - set by running()
        return self._manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.lifespan(scope, receive, send)
            return
        if scope["type"] != "http":
            return
        if not settings.LEXROOM_SERVER_TIMING:
            await self._serve(scope, receive, send)
            return
        started = time.perf_counter()
        # The registry adds its handlers' time under "tool"; the worker thread that runs them
        # gets a copy of this context, holding the same totals.
        with stage_timings() as totals:
            await self._serve(scope, receive, _with_server_timing(send, started, totals))

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = _headers(scope)
        host = headers.get("host", "")
        if not host_allowed(host):
            await _json_error(send, 421, "invalid_host", f"Host {host!r} is not allowed.", [])
            return
        origin = headers.get("origin")
        if origin is not None and not origin_allowed(origin, host):
            await _json_error(send, 403, "invalid_origin", f"Origin {origin!r} not allowed.", [])
            return
        if scope.get("method") != "POST":
            # Stateless: no server-initiated stream to open with GET (the spec allows a 405),
            # and no session to end with DELETE. A GET would otherwise hang open for ever.
            await _json_error(send, 405, "method_not_allowed", "Use POST.", [(b"allow", b"POST")])
            return
        limit = max_body_bytes()
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await _json_error(send, 413, "too_large", f"Body over {limit} bytes.", [])
            return
        raw = _bearer(headers)
        token = None
        if raw is not None:
            client = scope.get("client") or ("", 0)
            token = await run_in_thread(authenticate, raw, str(client[0]))
        if token is None:
            await _json_error(
                send,
                401,
                "unauthorized",
                "Send Authorization: Bearer <token> with a valid, unrevoked, unexpired token "
                "(python manage.py create_token).",
                [(b"www-authenticate", b'Bearer realm="lexroom"')],
            )
            return
        try:
            body, trailing = await _read_body(receive, limit)
        except _BodyTooLarge:
            await _json_error(send, 413, "too_large", f"Body over {limit} bytes.", [])
            return
        pending: deque[Message] = deque(
            [{"type": "http.request", "body": body, "more_body": False}, *trailing]
        )

        async def replay() -> Message:
            return pending.popleft() if pending else await receive()

        manager = await self._ensure_manager()
        # The scope travels with the request to the tool handler (ctx.request.scope): per
        # request, so concurrent callers never see each other's identity.
        scope = {**scope, CALLER_SCOPE_KEY: Caller(user=token.user, token=token, via="mcp")}
        await manager.handle_request(scope, replay, send)
