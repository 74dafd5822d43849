"""``lexroom-mcp``: the Lexroom MCP server over stdio, for local clients (Claude Desktop/Code).

The token comes from ``LEXROOM_TOKEN`` (never a command-line argument, which other users
can read in the process list). The registry is called in this process, as the token's user,
with the token checked again on every call so a revoked token stops working at once.
stdout carries only JSON-RPC: logs go to stderr.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any

import anyio


def _fail(message: str) -> int:
    print(f"lexroom-mcp: {message}", file=sys.stderr, flush=True)
    return 2


def _setup_django() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    # Whatever LOGGING says, nothing may write to stdout: it is the protocol channel.
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler) and handler.stream is sys.stdout:
            handler.setStream(sys.stderr)


async def _serve(raw_token: str) -> None:
    from mcp.server.context import ServerRequestContext
    from mcp.server.stdio import stdio_server

    from agents.mcp.server import Caller, authenticate, build_server, run_in_thread

    token = await run_in_thread(authenticate, raw_token, "stdio")
    if token is None:
        raise _InvalidToken
    caller = Caller(user=token.user, token=token, via="mcp-stdio", raw_token=raw_token)

    def resolve_caller(_ctx: ServerRequestContext[Any, Any]) -> Caller:
        return caller

    server = build_server(resolve_caller=resolve_caller)
    print(f"lexroom-mcp: serving as {token.user.email} over stdio", file=sys.stderr, flush=True)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


class _InvalidToken(Exception):
    pass


def _help() -> int:
    """Usage and the tools served: listing them loads Django and every app, so a broken
    install fails here rather than in a client's first call."""
    _setup_django()
    from agents.tools.registry import tool_definitions

    names = ", ".join(sorted(tool["name"] for tool in tool_definitions()))
    print(
        "usage: LEXROOM_TOKEN=<personal access token> lexroom-mcp\n"
        "The Lexroom MCP server over stdio (JSON-RPC on stdin/stdout, logs on stderr), "
        "acting as the token's user.\n"
        f"Tools: {names}"
    )
    return 0


def main() -> int:
    """Entry point of the ``lexroom-mcp`` console script."""
    if {"-h", "--help"} & set(sys.argv[1:]):
        return _help()
    raw_token = os.environ.get("LEXROOM_TOKEN", "").strip()
    if not raw_token:
        return _fail(
            "set LEXROOM_TOKEN to a personal access token "
            "(python manage.py create_token --user EMAIL --name claude)."
        )
    try:
        _setup_django()
    except Exception as exc:  # a bad setting: say which, without a traceback on the wire
        return _fail(f"cannot start Django: {exc}")
    try:
        anyio.run(_serve, raw_token)
    except _InvalidToken:
        return _fail("LEXROOM_TOKEN is not a valid token (unknown, revoked or expired).")
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
