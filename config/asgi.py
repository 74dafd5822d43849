"""ASGI entry point: `uvicorn config.asgi:application` serves pages, REST and MCP.

``/mcp`` goes to the MCP app (streamable HTTP, see ``agents.mcp.http``); everything else to
Django. The ASGI lifespan, which Django does not handle, starts and stops the MCP session
manager.
"""

from __future__ import annotations

import os
from typing import Any, cast

from django.core.asgi import get_asgi_application
from starlette.types import Receive, Scope, Send

from core.body_limit import body_limited
from core.in_flight import in_flight_capped

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_application = get_asgi_application()

# Imported after Django is set up: the MCP app reaches the models through the tool registry.
from agents.mcp.http import McpHttpApp  # noqa: E402

MCP_PATHS = frozenset({"/mcp", "/mcp/"})
mcp_application = McpHttpApp()


# django-stubs types the handler with narrower ASGI types than Starlette's; same protocol.
async def _django(scope: Scope, receive: Receive, send: Send) -> None:
    await django_application(cast(dict[str, Any], scope), receive, cast(Any, send))


# Django with a cap on request bodies (LEXROOM_MAX_REQUEST_MB), before it spools one to disk.
django_bounded = body_limited(_django)


async def _routed(scope: Scope, receive: Receive, send: Send) -> None:
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


# One session's or token's requests in flight capped (LEXROOM_REQUESTS_PER_CREDENTIAL), before
# either app takes a thread or a database connection for them.
application = in_flight_capped(_routed)
