"""The registry's tools as the agent offers and runs them.

The agent runs in its user's scope, through ``call_tool`` like every other surface (role,
token, tenant scope, audit): whatever the model asks, the workspace is the conversation's
(the ``workspace`` argument is not offered, and is overwritten if sent), and a search's
query is the user's own words (the model picks filters; it never rewrites the question).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from agents.chat._caselaw import CASE_LAW_TOOLS, case_law_view
from agents.chat._egress import EXTERNAL_TOOLS
from agents.chat._law import (
    AUTO_GRAPH_ARTICLES,
    AUTO_GRAPH_TEXT_CHARS,
    LAW_TOOLS,
    graph_view,
    law_view,
    to_follow,
)
from agents.chat._sources import (
    SourceBook,
    contract_view,
    duplicates_view,
    search_view,
    tool_message,
)
from agents.tools.registry import REGISTRY, Tool, ToolError, _load, call_tool
from search.paging import MAX_LIMIT, MAX_QUERY_CHARS
from workspaces.models import PersonalToken, User, Workspace

# Not offered: the agent itself, and the workspace list (the conversation fixes the workspace).
NOT_OFFERED = frozenset({"ask", "list_workspaces"})


def agent_tools(*, external: bool = True) -> list[Tool]:
    """The workspace's tools, the French codes' and the case law's (public sources, the same
    for every room); without the case law's when ``external`` is off (the firm keeps the
    agent's queries on the server)."""
    _load()
    public = LAW_TOOLS | (CASE_LAW_TOOLS if external else frozenset())
    return [
        tool
        for name, tool in REGISTRY.items()
        if name not in NOT_OFFERED
        and (tool.needs_workspace or name in public)
        and (external or name not in EXTERNAL_TOOLS)
    ]


def tool_schemas(*, external: bool = True) -> list[dict[str, Any]]:
    """Ollama's tool format, from the registry's flattened schemas, without ``workspace``."""
    schemas = []
    for tool in agent_tools(external=external):
        parameters = copy.deepcopy(tool.definition()["inputSchema"])
        parameters.get("properties", {}).pop("workspace", None)
        if "required" in parameters:
            parameters["required"] = [k for k in parameters["required"] if k != "workspace"]
        schemas.append(
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": parameters,
                },
            }
        )
    return schemas


@dataclass
class Outcome:
    """A tool call's result as the model reads it, and what the page shows of it."""

    message: str
    count: int | None
    excluded: int = 0
    error: str | None = None
    arguments: dict[str, Any] | None = None  # as run (workspace and query set by the code)


@dataclass(frozen=True)
class Caller:
    user: User
    workspace: Workspace
    token: PersonalToken | None
    question: str
    external_sites: bool = True  # the firm lets the agent query public sites


def needs_approval(caller: Caller, name: str) -> bool:
    """A tool that changes data waits for the user's approval; read-only tools run at once.
    Through a read-only token nothing waits: the call runs and is refused as on any other
    surface (an approval on the page must not turn a read-only token into a writer)."""
    tool = REGISTRY.get(name)
    writes = tool is not None and not tool.read_only and name not in NOT_OFFERED
    return writes and not (caller.token is not None and caller.token.read_only)


def arguments_as_run(caller: Caller, name: str, proposed: dict[str, Any]) -> dict[str, Any]:
    """The call's arguments as the code runs them: the conversation's workspace, the
    user's words as a search's query."""
    arguments = {**proposed}
    if name in LAW_TOOLS | CASE_LAW_TOOLS:
        arguments.pop("workspace", None)  # public sources: no workspace
    else:
        arguments["workspace"] = caller.workspace.slug
    if name in {"search_data_room", "search_legal_codes"} and proposed.get("query"):
        # A question may be longer than a query: its start is what the search reads.
        arguments["query"] = caller.question[:MAX_QUERY_CHARS]
    return arguments


def _call(caller: Caller, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = call_tool(
        name=name, arguments=arguments, user=caller.user, token=caller.token, via="agent"
    )
    return result.content


def _search_all(
    caller: Caller, arguments: dict[str, Any], first: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A filter-only search read to its last page (up to LEXROOM_AGENT_MAX_LISTED); ``first``,
    a listing already read, is reused when it holds every contract from the first."""
    arguments = {**arguments, "limit": MAX_LIMIT, "offset": 0}
    complete = first is not None and first["offset"] == 0 and first["next_offset"] is None
    result = (
        first if first is not None and complete else _call(caller, "search_data_room", arguments)
    )
    while (
        result.get("next_offset") is not None
        and len(result["results"]) < settings.LEXROOM_AGENT_MAX_LISTED
    ):
        more = _call(caller, "search_data_room", {**arguments, "offset": result["next_offset"]})
        result["results"] += more["results"]
        result["next_offset"] = more["next_offset"]
    return result


def run_tool(caller: Caller, book: SourceBook, name: str, proposed: dict[str, Any]) -> Outcome:
    """Run one call the model asked for; a refusal or a bad argument goes back to the model
    as the tool's result, with the allowed values, so that it can correct its call."""
    offered_tools = agent_tools(external=caller.external_sites)
    if name not in {tool.name for tool in offered_tools}:
        offered = sorted(tool.name for tool in offered_tools)
        error = {"error": "unknown_tool", "message": f"No tool {name!r}.", "allowed": offered}
        return Outcome(tool_message(name, error), None, error="unknown_tool")
    arguments = arguments_as_run(caller, name, proposed if isinstance(proposed, dict) else {})
    try:
        if name == "search_data_room" and not arguments.get("query"):
            content = _search_all(caller, arguments)
        else:
            content = _call(caller, name, arguments)
            if name == "search_data_room" and content.get("query") is None:
                # Every word of the question was a condition: a listing, read to its end.
                content = _search_all(caller, arguments, first=content)
    except ToolError as exc:
        body = exc.as_dict()
        return Outcome(tool_message(name, body), None, error=exc.kind, arguments=arguments)
    view, count, excluded = _view(book, name, content, arguments)
    if name == "search_legal_codes":
        view["renvois_followed"] = _follow(caller, book, content)
    return Outcome(tool_message(name, view), count, excluded, arguments=arguments)


def _follow(caller: Caller, book: SourceBook, content: dict[str, Any]) -> list[dict[str, Any]]:
    """The renvois of the search's best hits, followed by the code (two hops) before any
    draft: the model reads the articles the law points to, numbered, not its memory of them."""
    graphs = []
    for arguments in to_follow(content):
        try:
            graph = _call(caller, "follow_renvois", arguments)
        except ToolError:
            continue  # the hit was read a moment ago; a failure here only means fewer sources
        graphs.append(
            graph_view(book, graph, articles=AUTO_GRAPH_ARTICLES, chars=AUTO_GRAPH_TEXT_CHARS)
        )
    return graphs


def _view(
    book: SourceBook, name: str, content: dict[str, Any], arguments: dict[str, Any]
) -> tuple[dict[str, Any], int | None, int]:
    if name == "search_data_room":
        # Filters alone, or a query whose every word was read as a condition: a listing.
        view = search_view(book, content, exhaustive=content.get("query") is None)
        excluded = len(content["excluded_unknown"]) + len(content["excluded_by_amendment"])
        return view, len(content["results"]), excluded
    if name == "get_contract":
        return contract_view(book, content), len(content.get("articles", [])), 0
    if name == "find_duplicates":
        return duplicates_view(book, content), int(content["total_groups"]), 0
    if name in LAW_TOOLS:
        view, count = law_view(book, name, content)
        return view, count, 0
    if name in CASE_LAW_TOOLS:
        view, count = case_law_view(book, name, content, arguments)
        return view, count, 0
    if name == "rate_result":  # the rated article is a source the answer may cite
        n = book.article(content["contract_id"], "", {"chunk_id": content["chunk_id"]})
        return {**content, "n": n}, 1, 0
    return content, None, 0
