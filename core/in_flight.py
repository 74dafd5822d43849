"""A cap on the requests one credential has in flight in one server process, checked before
the request reaches Django or MCP (so before any database connection is taken).

Every request that carries a credential (a bearer token, or a session cookie) counts against
that credential until its response ends; past ``LEXROOM_REQUESTS_PER_CREDENTIAL`` the request
is answered 429 with ``Retry-After`` at once. Without it, one browser opening a hundred live
streams, or a script firing a hundred parallel calls, took a hundred worker threads and as
many database connections before any per-user limit (which needs the database to know the
user) could refuse them: the other firms' requests then found no connection. Static files
are not counted (they touch no database). The credential is kept as a hash, never as is.
"""

from __future__ import annotations

import hashlib
from collections import Counter

from django.conf import settings
from starlette.types import ASGIApp, Receive, Scope, Send

RETRY_AFTER_S = 1


def _credential(scope: Scope) -> str | None:
    """A hash of the request's bearer token or session cookie; None without either."""
    for key, value in scope.get("headers", []):
        name = key.lower()
        if name == b"authorization" and value[:7].lower() == b"bearer ":
            return "t" + hashlib.sha256(value[7:].strip()).hexdigest()[:32]
        if name == b"cookie":
            for part in value.split(b";"):
                cookie, _, content = part.strip().partition(b"=")
                if cookie == settings.SESSION_COOKIE_NAME.encode() and content:
                    return "s" + hashlib.sha256(content).hexdigest()[:32]
    return None


async def _too_many(send: Send, limit: int) -> None:
    body = (
        b'{"error": "too_many_requests", "detail": "At most %d requests of one session or '
        b'token at once: wait for one to end."}' % limit
    )
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(RETRY_AFTER_S).encode()),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def in_flight_capped(app: ASGIApp) -> ASGIApp:
    """``app`` with each credential's requests in flight capped (this process's count)."""
    in_flight: Counter[str] = Counter()

    async def capped(scope: Scope, receive: Receive, send: Send) -> None:
        limit = int(settings.LEXROOM_REQUESTS_PER_CREDENTIAL)
        path = str(scope.get("path", ""))
        credential = _credential(scope) if scope["type"] == "http" and limit else None
        if credential is None or path.startswith(settings.STATIC_URL or "/static/"):
            await app(scope, receive, send)
            return
        if in_flight[credential] >= limit:
            await _too_many(send, limit)
            return
        in_flight[credential] += 1
        try:
            await app(scope, receive, send)
        finally:
            in_flight[credential] -= 1
            if not in_flight[credential]:
                del in_flight[credential]

    return capped
