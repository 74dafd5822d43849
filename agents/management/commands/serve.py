"""serve [--host 127.0.0.1] [--port 8000] [--workers 1]: pages, REST and MCP under uvicorn.

Binding to anything but loopback needs an explicit production setup; see ``_refusal``.
"""

from __future__ import annotations

import ipaddress
import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.env import env_bool

LOOPBACK_NAMES = frozenset({"localhost", "ip6-localhost"})


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name other than localhost: it may resolve to anything


def _refusal(host: str) -> str | None:
    """Why binding ``host`` is unsafe in this environment, or None when it is fine."""
    if is_loopback(host):
        return None
    missing = []
    if not os.environ.get("ALLOWED_HOSTS", "").strip():
        missing.append("ALLOWED_HOSTS (the public host names, set explicitly in the environment)")
    if not env_bool("LEXROOM_BEHIND_TLS_PROXY", default=False):
        missing.append("LEXROOM_BEHIND_TLS_PROXY=1 (TLS is terminated by a reverse proxy)")
    if not missing:
        return None
    return (
        f"Refusing to listen on {host}: this server speaks plain HTTP, and personal access "
        "tokens (Authorization: Bearer) and session cookies would cross the network in clear "
        "text; the DEBUG host defaults would also answer any Host header pointed at the "
        "machine. Put a TLS-terminating reverse proxy in front and set "
        + " and ".join(missing)
        + ". For local use keep --host 127.0.0.1."
    )


class Command(BaseCommand):
    help = "Serve pages, REST and MCP (/mcp) with uvicorn."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="Interface (default loopback).")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes.")

    def handle(self, *args: Any, **options: Any) -> None:
        host: str = options["host"]
        if options["workers"] < 1:
            raise CommandError("--workers must be at least 1.")
        refusal = _refusal(host)
        if refusal:
            raise CommandError(refusal)
        import uvicorn

        behind_proxy = env_bool("LEXROOM_BEHIND_TLS_PROXY", default=False)
        self.stderr.write(f"Lexroom on http://{host}:{options['port']}/ (MCP at /mcp)")
        uvicorn.run(
            "config.asgi:application",
            host=host,
            port=options["port"],
            workers=options["workers"],
            # Client addresses and scheme from the proxy only when there is one.
            proxy_headers=behind_proxy,
            lifespan="on",
        )
