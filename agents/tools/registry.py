"""The tool registry: name, description for LLMs, strict input model, handler, role, audit.

``call_tool`` is the single path every surface takes (MCP over HTTP and stdio, REST, the
``call_tool`` command, the agent): it validates the arguments, resolves the workspace the
caller may use, checks role and token, sets the tenant scope, runs the handler, and writes
an audit row. Domain errors come back as :class:`ToolError` with the allowed values, so a
model can correct its call.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext
from pydantic import BaseModel, ConfigDict, ValidationError

from agents.tools._ratelimit import _rate_limit
from agents.tools.aliases import canonical_name, resolve_alias
from agents.tools.errors import ToolError as ToolError
from agents.tools.schema import flatten_schema, output_schema
from core.embeddings import ModelUnavailable
from core.metrics import timed
from core.parsers import MAX_JSON_DEPTH, json_depth, json_has_nul
from search.errors import InvalidSearchArguments
from workspaces.audit import audit_record
from workspaces.credentials import acting_token
from workspaces.models import PersonalToken, Role, User, Workspace
from workspaces.selectors import (
    RoleRequired,
    WorkspaceNotFound,
    workspace_get_for_member,
    workspace_slugs_for_user,
)
from workspaces.tenancy import current_scope, current_workspace_ids, tenant_scope, user_scope


@dataclass(frozen=True)
class ToolContext:
    user: User
    workspace: Workspace | None
    token: PersonalToken | None


class AnyObject(BaseModel):
    """The output model of a tool that declares none: any JSON object. Only throwaway tools
    (tests) rely on it; tests/agents/test_tool_outputs.py refuses it for the real ones."""

    model_config = ConfigDict(extra="allow")


@dataclass(frozen=True)
class Tool:
    """A tool: ``handler`` gets the parsed ``input_model`` and returns the JSON form of an
    ``output_model`` instance (published as MCP ``outputSchema`` and in OpenAPI)."""

    name: str
    description: str
    input_model: type[BaseModel]
    handler: Callable[[ToolContext, Any], dict[str, Any]]
    output_model: type[BaseModel] = AnyObject
    min_role: str = Role.VIEWER
    read_only: bool = True
    needs_workspace: bool = True
    # The handler opens its own tenant scopes (the agent: minutes of model calls must not
    # hold a transaction, and its own tool calls each take one).
    own_scopes: bool = False

    def definition(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": flatten_schema(self.input_model),
            "outputSchema": output_schema(self.output_model),
            "annotations": {"readOnlyHint": self.read_only},
        }


@dataclass
class ToolResult:
    """``text``: ``content`` as JSON text (serialised once, for the audit's size and for
    MCP); ``plain``: ``content`` held JSON types only (no value went through ``str``)."""

    content: dict[str, Any]
    workspace: str | None
    duration_ms: float
    text: str = ""
    plain: bool = True


def result_text(content: Any) -> tuple[str, bool]:
    """``content`` as JSON text, and whether it was plain JSON already (no ``str`` fallback
    for a date, a decimal…, so a consumer may use ``content`` itself as structured JSON)."""
    fallbacks: list[str] = []

    def fallback(value: Any) -> str:
        fallbacks.append(type(value).__name__)
        return str(value)

    return json.dumps(content, ensure_ascii=False, default=fallback), not fallbacks


REGISTRY: dict[str, Tool] = {}


def tool_named(name: str) -> Tool | None:
    """The registered tool ``name`` (or an alias) names; None when there is none."""
    _load()
    return REGISTRY.get(canonical_name(name))


def register(tool: Tool) -> Tool:
    REGISTRY[tool.name] = tool
    return tool


def tool_definitions() -> list[dict[str, Any]]:
    _load()
    return [tool.definition() for tool in REGISTRY.values()]


def _load() -> None:
    # The tool modules register themselves on import; importing here keeps the registry
    # module free of the search app's import at Django start-up. The agent's own tool
    # (``ask``) is registered by the agents app (agents/ask_tool.py).
    from agents.tools import caselaw, compliance, definitions, legal  # noqa: F401


# --- The call path -----------------------------------------------------------------------


def _validate(tool: Tool, arguments: dict[str, Any]) -> BaseModel:
    if not isinstance(arguments, dict):
        raise ToolError("invalid_arguments", gettext("Arguments must be a JSON object."))
    if json_depth(arguments) > MAX_JSON_DEPTH:
        message = gettext("Arguments nest more than %(depth)d levels deep.")
        raise ToolError("invalid_arguments", message % {"depth": MAX_JSON_DEPTH})
    if json_has_nul(arguments):
        raise ToolError("invalid_arguments", gettext("Arguments may not contain NUL characters."))
    try:
        return tool.input_model.model_validate(arguments)
    except ValidationError as exc:
        problems = [
            {
                "field": ".".join(str(p) for p in error["loc"]) or "(arguments)",
                "problem": error["msg"],
            }
            for error in exc.errors()
        ]
        raise ToolError(
            "invalid_arguments",
            "; ".join(f"{p['field']}: {p['problem']}" for p in problems),
            {"errors": problems, "schema": flatten_schema(tool.input_model)},
        ) from None


def _named_workspace(tool: Tool, arguments: BaseModel) -> str | None:
    return getattr(arguments, "workspace", None) if tool.needs_workspace else None


def _workspace_for(
    tool: Tool, arguments: BaseModel, user: User, *, narrowed: bool = False
) -> Workspace | None:
    """The workspace the call names (or the caller's only one), checked against the tool's
    role, within the caller's scope. Missing, foreign and not-a-member read the same.
    ``narrowed``: the scope holds only the named workspace (see :func:`user_scope`)."""
    if not tool.needs_workspace:
        return None
    slug = getattr(arguments, "workspace", None)
    visible = current_workspace_ids()
    try:
        if slug is not None:
            return workspace_get_for_member(user=user, slug=slug, min_role=tool.min_role)
        if len(visible) == 1:
            return workspace_get_for_member(
                user=user, workspace_id=visible[0], min_role=tool.min_role
            )
    except WorkspaceNotFound:
        # The caller learns only what it may use; in a scope narrowed to the slug, _call
        # lists it once out of that scope.
        raise ToolError(
            "not_found",
            gettext("Unknown workspace %(slug)r.") % {"slug": slug},
            {
                "field": "workspace",
                "allowed": workspace_slugs_for_user(user=user) if not narrowed else None,
            },
        ) from None
    except RoleRequired:
        message = gettext("%(tool)s needs the %(role)s role.")
        raise ToolError(
            "forbidden", message % {"tool": tool.name, "role": Role(tool.min_role).label}
        ) from None
    raise ToolError(
        "invalid_arguments",
        gettext("Pass `workspace` (a slug): you have access to several workspaces.")
        if visible
        else gettext("You have access to no workspace."),
        {"field": "workspace", "allowed": workspace_slugs_for_user(user=user)},
    )


def _digest(arguments: dict[str, Any]) -> str | None:
    if json_depth(arguments) > MAX_JSON_DEPTH:
        return None  # refused for its depth; hashing it could exhaust the stack
    canonical = json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Call:
    """One tool call, made once by :func:`call_tool` and handed down its path: what was asked,
    by whom, through what, since when."""

    name: str
    arguments: dict[str, Any]  # as sent (the audit keeps their digest)
    user: User
    token: PersonalToken | None
    via: str  # the surface: cli, rest, mcp, agent
    started: float  # time.perf_counter() at the entry
    # No scope was open at the entry (MCP, CLI, agent): the call's transaction is its own,
    # and the tool's scope is the last thing in it. A REST view's scope is reused as it is.
    own_transaction: bool

    @property
    def only(self) -> list[int] | None:
        """The workspaces the token is restricted to; None: all the user's."""
        return self.token.restricted_to if self.token is not None else None

    def context(self, workspace: Workspace | None) -> ToolContext:
        return ToolContext(self.user, workspace, self.token)

    def audit(self, action: str, workspace: Workspace | None = None, **details: Any) -> None:
        """An audit row for the call, ``details`` after its surface and token."""
        token = self.token.prefix if self.token else None
        audit_record(
            firm=self.user.firm,
            workspace=workspace,
            actor=self.user,
            action=action,
            target=str(self.name)[:200],
            details={"via": self.via, "token": token, **details},
        )


def call_tool(
    *,
    name: str,
    arguments: dict[str, Any],
    user: User,
    token: PersonalToken | None = None,
    via: str = "cli",
) -> ToolResult:
    """Run tool ``name`` as ``user`` (through ``token`` if given). Raises :class:`ToolError`.
    An alias (:mod:`agents.tools.aliases`) runs the tool it names."""
    _load()
    name, arguments = resolve_alias(name, arguments)
    call = Call(
        name=name,
        arguments=arguments,
        user=user,
        token=token,
        via=via,
        started=time.perf_counter(),
        own_transaction=current_scope() is None,
    )
    try:
        with acting_token(token):
            return _call(call)
    except ToolError as exc:
        if not exc.audited:
            raise
        # Refusals are audited too (who tried what), outside the rolled-back transaction.
        with (
            acting_token(token),
            tenant_scope(workspace_ids=(), user_id=user.pk, firm_id=user.firm_id),
        ):
            digest = _digest(arguments) if isinstance(arguments, dict) else None
            call.audit("tool.error", error=exc.kind, arguments_sha256=digest)
        raise


def _call(call: Call) -> ToolResult:
    tool = REGISTRY.get(call.name)
    if tool is None:
        message = gettext("Unknown tool %(name)r.") % {"name": call.name}
        raise ToolError("unknown_tool", message, {"allowed": sorted(REGISTRY)})
    # Per user, not per token: a user may hold several tokens, and a new token must not
    # bring a new budget; sessions (the agent, pages) draw on the same one.
    _rate_limit(f"user:{call.user.pk}")
    parsed = _validate(tool, call.arguments)
    if call.token is not None and call.token.read_only and not tool.read_only:
        message = gettext("%(tool)s changes data; this token is read-only.")
        raise ToolError("forbidden", message % {"tool": call.name})
    # A call that names its workspace in a transaction of its own looks up that one only.
    slug = _named_workspace(tool, parsed) if call.own_transaction else None
    try:
        return _run(call, tool, parsed, slug)
    except ToolError as exc:
        if exc.kind == "not_found" and exc.details.get("allowed", []) is None:
            with user_scope(call.user, only=call.only):
                exc.details["allowed"] = workspace_slugs_for_user(user=call.user)
        raise


def _run(call: Call, tool: Tool, parsed: BaseModel, slug: str | None) -> ToolResult:
    if tool.own_scopes:
        return _run_unscoped(call, tool, parsed, slug)
    user = call.user
    with user_scope(user, only=call.only, slug=slug) as visible:
        workspace = _workspace_for(tool, parsed, user, narrowed=slug is not None)
        scope_ids = (workspace.pk,) if workspace is not None else visible
        with tenant_scope(
            workspace_ids=scope_ids,
            user_id=user.pk,
            firm_id=user.firm_id,
            final=call.own_transaction,
        ):
            try:
                with timed("tool", cpu=True):  # the transport's Server-Timing, when measuring
                    content = tool.handler(call.context(workspace), parsed)
            except InvalidSearchArguments as exc:
                raise ToolError("invalid_arguments", exc.message, exc.details) from None
            except ModelUnavailable as exc:  # the firm's IT must act (start Ollama, a model)
                raise ToolError("unavailable", str(exc)) from None
            result = _done(call, content, workspace)
    return result


def _run_unscoped(call: Call, tool: Tool, parsed: BaseModel, slug: str | None) -> ToolResult:
    """A tool whose handler opens its own scopes: the workspace and the role are checked in
    the caller's scope, which is then closed before the handler runs."""
    user = call.user
    with user_scope(user, only=call.only, slug=slug):
        workspace = _workspace_for(tool, parsed, user, narrowed=slug is not None)
    try:
        content = tool.handler(call.context(workspace), parsed)
    except ModelUnavailable as exc:
        raise ToolError("unavailable", str(exc)) from None
    scope_ids = (workspace.pk,) if workspace is not None else ()
    with tenant_scope(workspace_ids=scope_ids, user_id=user.pk, firm_id=user.firm_id):
        return _done(call, content, workspace)


def _done(call: Call, content: dict[str, Any], workspace: Workspace | None) -> ToolResult:
    """The call's result, audited (in a scope covering ``workspace``)."""
    duration_ms = (time.perf_counter() - call.started) * 1000
    text, plain = result_text(content)
    call.audit(
        "tool.call",
        workspace,
        arguments_sha256=_digest(call.arguments),
        duration_ms=round(duration_ms, 1),
        result_bytes=len(text.encode()),
    )
    return ToolResult(content, workspace.slug if workspace else None, duration_ms, text, plain)
