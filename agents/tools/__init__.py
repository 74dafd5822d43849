"""One tool registry for MCP, REST, the CLI and the agent (see registry.py)."""

from __future__ import annotations

from agents.tools.registry import (
    REGISTRY,
    Tool,
    ToolError,
    ToolResult,
    call_tool,
    tool_definitions,
)

__all__ = ["REGISTRY", "Tool", "ToolError", "ToolResult", "call_tool", "tool_definitions"]
