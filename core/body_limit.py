"""A cap on HTTP request bodies for an ASGI app (``LEXROOM_MAX_REQUEST_MB``), enforced before
the app reads a byte: a declared length over the cap is a 413 at once; a body sent without
one is cut off once past it."""

from __future__ import annotations

from django.conf import settings
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from core.asgi_responses import send_json


async def _too_large(send: Send) -> None:
    body = b'{"detail": "Request body too large."}'
    await send_json(send, 413, body, (b"connection", b"close"))


def _declared_length(scope: Scope) -> int | None:
    for key, value in scope.get("headers", []):
        if key.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def body_limited(app: ASGIApp) -> ASGIApp:
    """``app`` with its HTTP request bodies capped at ``LEXROOM_MAX_REQUEST_BYTES``.

    Django's ASGI handler reads a whole body to a temporary file before any view or
    authentication runs: without a cap, anyone could fill the disk.
    """

    async def bounded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        limit = int(settings.LEXROOM_MAX_REQUEST_BYTES)
        declared = _declared_length(scope)
        if declared is not None and declared > limit:
            await _too_large(send)
            return
        received = 0

        async def bounded_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    return {"type": "http.disconnect"}  # the app aborts the request unread
            return message

        await app(scope, bounded_receive, send)

    return bounded
