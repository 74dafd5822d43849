"""Caps on what one credential sends one server process, checked before the request reaches
Django or MCP (so before any database connection is taken): requests in flight, and requests
a second.

Every request that carries a credential (a bearer token, or a session cookie) counts against
that credential until its response ends; past ``LEXROOM_REQUESTS_PER_CREDENTIAL`` the request
is answered 429 with ``Retry-After`` at once. Without it, one browser opening a hundred live
streams, or a script firing a hundred parallel calls, took a hundred worker threads and as
many database connections before any per-user limit (which needs the database to know the
user) could refuse them: the other firms' requests then found no connection.

A credential also sends at most ``LEXROOM_REQUESTS_PER_SECOND`` requests a second (a token
bucket holding twice that, for a page's burst); past it, 429 at once. The per-user limit on
tool calls answers a refusal only after authentication and a database round trip: a script
looping on refusals kept both cores busy answering them. Static files are not counted (they
touch no database). The credential is kept as a hash, never as is.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from dataclasses import dataclass

from django.conf import settings
from starlette.types import ASGIApp, Receive, Scope, Send

from core.asgi_responses import send_json

RETRY_AFTER_S = 1
MAX_BUCKETS = 10_000


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


@dataclass
class _Bucket:
    tokens: float
    at: float

    def take(self, rate: float, now: float) -> bool:
        """One request's token, refilled at ``rate`` a second up to twice ``rate``."""
        self.tokens = min(2 * rate, self.tokens + (now - self.at) * rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


async def _too_many(send: Send, detail: bytes) -> None:
    body = b'{"error": "too_many_requests", "detail": "%s"}' % detail
    retry = (b"retry-after", str(RETRY_AFTER_S).encode())
    await send_json(send, 429, body, retry, (b"cache-control", b"no-store"))


def in_flight_capped(app: ASGIApp) -> ASGIApp:
    """``app`` with each credential's requests in flight and requests a second capped (this
    process's counts)."""
    in_flight: Counter[str] = Counter()
    buckets: dict[str, _Bucket] = {}

    async def capped(scope: Scope, receive: Receive, send: Send) -> None:
        limit = int(settings.LEXROOM_REQUESTS_PER_CREDENTIAL)
        path = str(scope.get("path", ""))
        credential = _credential(scope) if scope["type"] == "http" and limit else None
        if credential is None or path.startswith(settings.STATIC_URL or "/static/"):
            await app(scope, receive, send)
            return
        if in_flight[credential] >= limit:
            detail = b"At most %d requests of one session or token at once." % limit
            await _too_many(send, detail)
            return
        rate = float(settings.LEXROOM_REQUESTS_PER_SECOND)
        now = time.monotonic()
        bucket = buckets.setdefault(credential, _Bucket(2 * rate, now))
        if rate and not bucket.take(rate, now):
            detail = b"At most %d requests a second from one session or token." % rate
            await _too_many(send, detail)
            return
        if len(buckets) > MAX_BUCKETS:  # credentials long idle hold a full bucket: forget them
            for key in [k for k, b in buckets.items() if now - b.at > 2.0]:
                del buckets[key]
        in_flight[credential] += 1
        try:
            await app(scope, receive, send)
        finally:
            in_flight[credential] -= 1
            if not in_flight[credential]:
                del in_flight[credential]

    return capped
