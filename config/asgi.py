"""ASGI entry point: `uvicorn config.asgi:application` serves pages, REST and MCP.

``/mcp`` goes to the MCP app (streamable HTTP, see ``agents.mcp.http``); everything else to
Django. The ASGI lifespan, which Django does not handle, starts and stops the MCP session
manager.
"""

from __future__ import annotations

import os
from typing import Any, cast

from django.conf import settings
from django.core.asgi import get_asgi_application
from starlette.types import Message, Receive, Scope, Send

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# django-stubs types the handler with narrower ASGI types than Starlette's; same protocol.
django_application = get_asgi_application()

# Imported after Django is set up: the MCP app reaches the models through the tool registry.
from agents.mcp.http import McpHttpApp  # noqa: E402

MCP_PATHS = frozenset({"/mcp", "/mcp/"})
mcp_application = McpHttpApp()


async def _too_large(send: Send) -> None:
    body = b'{"detail": "Request body too large."}'
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _declared_length(scope: Scope) -> int | None:
    for key, value in scope.get("headers", []):
        if key.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def django_bounded(scope: Scope, receive: Receive, send: Send) -> None:
    """Django with a cap on request bodies (``LEXROOM_MAX_REQUEST_MB``).

    Django's ASGI handler reads a whole body to a temporary file before any view or
    authentication runs: without a cap, anyone could fill the disk. A declared length over
    the cap is a 413 at once; a body sent without one is cut off once past it.
    """
    if scope["type"] != "http":
        await django_application(cast(dict[str, Any], scope), receive, cast(Any, send))
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
                return {"type": "http.disconnect"}  # Django aborts the request unread
        return message

    await django_application(cast(dict[str, Any], scope), bounded_receive, cast(Any, send))


async def application(scope: Scope, receive: Receive, send: Send) -> None:
    """Route ``/mcp`` to MCP, the rest to Django; answer the lifespan for MCP."""
    if scope["type"] == "lifespan":
        await mcp_application.lifespan(scope, receive, send)
        return
    path = scope.get("path", "")
    root_path = scope.get("root_path", "")
    if root_path and path.startswith(root_path):
        path = path[len(root_path) :]
    if scope["type"] == "http" and path in MCP_PATHS:
        await mcp_application(scope, receive, send)
        return
    await django_bounded(scope, receive, send)
