"""The MCP surface: a thin adapter over the tool registry (``agents.tools.call_tool``).

``server.build_server`` is the one MCP server (tools/list from ``tool_definitions``,
tools/call through ``call_tool``); ``http`` serves it over streamable HTTP at ``/mcp`` (bearer
tokens, stateless, JSON responses) and ``stdio`` as the ``lexroom-mcp`` command.
"""

from __future__ import annotations
