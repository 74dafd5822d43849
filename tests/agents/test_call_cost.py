"""What one tool call costs the server outside its handler: queries per call, pinned.

A no-op tool isolates the registry's own work (token, scope, workspace and role, audit). Under
pytest the call runs inside the test's transaction, so each scope is a savepoint (two more
statements) where production opens the transaction itself. The counts are exact: a round trip
that comes back fails them.

In production (tools/call over /mcp, a call that names its workspace): the token (its
last_used_at at most once a minute), then BEGIN, the probe's settings, the user's membership
in the named workspace, the scope's settings, the workspace with the role, the audit row,
COMMIT; and the rate limit's one statement (count and mark: the limit is shared by every
process, so it lives in Postgres). No health-check ``SELECT 1`` on a worker thread's
connection used within the second (the last test below).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection, connections
from django.test import Client
from django.test.utils import CaptureQueriesContext
from pydantic import BaseModel, ConfigDict

from agents.mcp.server import Caller, _call, authenticate
from agents.tools import ToolError, call_tool
from agents.tools.registry import REGISTRY, Tool, ToolContext, register
from tests.factories import MembershipFactory, WorkspaceFactory
from tests.helpers.rooms import Room
from workspaces.models import AuditEvent, Role
from workspaces.tenancy import tenant_scope
from workspaces.tokens import token_create

pytestmark = pytest.mark.django_db

ARGUMENTS = {"workspace": "deal-alpha"}


class NoopInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    workspace: str | None = None


@pytest.fixture
def noop() -> Iterator[str]:
    """A tool whose handler runs no query: what remains is the registry's own cost."""

    def handler(context: ToolContext, arguments: NoopInput) -> dict[str, Any]:
        return {"workspace": context.workspace.slug if context.workspace else None}

    register(Tool(name="test_noop", description="No-op.", input_model=NoopInput, handler=handler))
    try:
        yield "test_noop"
    finally:
        del REGISTRY["test_noop"]


def _mcp_call(raw: str, name: str) -> dict[str, Any]:
    token = authenticate(raw, "127.0.0.1")
    assert token is not None
    return _call(Caller(user=token.user, token=token, via="mcp"), name, ARGUMENTS)


def test_a_cli_call_costs_nine_queries(room: Room, noop: str, django_assert_num_queries):
    # Savepoint, probe, the membership in the named workspace, scope, workspace with role,
    # audit, restore (the test's transaction; not in production), release. The tool's scope
    # is the user's, narrowed to the named workspace: not written again.
    with django_assert_num_queries(9):
        call_tool(name=noop, arguments=ARGUMENTS, user=room.viewer)


def test_an_mcp_call_costs_ten_queries_with_the_token_check(
    room: Room, noop: str, django_assert_num_queries
):
    _, raw = token_create(user=room.viewer, name="cost")
    _mcp_call(raw, noop)  # the first use records last_used_at (then once a minute)
    with django_assert_num_queries(10):
        assert _mcp_call(raw, noop) == {"workspace": "deal-alpha"}


def test_a_rest_call_reuses_the_views_scope(
    room: Room, noop: str, client: Client, django_assert_num_queries
):
    _, raw = token_create(user=room.viewer, name="cost")
    headers = {"Authorization": f"Bearer {raw}"}
    body = json.dumps(ARGUMENTS)
    client.post(f"/api/tools/{noop}", body, content_type="application/json", headers=headers)
    # Token, the view's scope (savepoint, probe, memberships, scope), workspace with role, the
    # tool's savepoint (its settings are the view's: not written again), audit, release,
    # restore, release.
    with django_assert_num_queries(12):
        response = client.post(
            f"/api/tools/{noop}", body, content_type="application/json", headers=headers
        )
    assert response.status_code == 200 and response.json() == {"workspace": "deal-alpha"}


def _queries_per_call(room: Room, name: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        call_tool(name=name, arguments=ARGUMENTS, user=room.viewer)
    return len(captured)


def test_the_cost_does_not_grow_with_the_users_workspaces(room: Room, noop: str):
    MembershipFactory(workspace=room.foreign_workspace, user=room.owner, role=Role.VIEWER)
    for number in range(2):
        other = WorkspaceFactory(firm=room.firm, slug=f"other-{number}")
        MembershipFactory(workspace=other, user=room.viewer, role=Role.VIEWER)
    few = _queries_per_call(room, noop)
    for number in range(2, 7):
        other = WorkspaceFactory(firm=room.firm, slug=f"other-{number}")
        MembershipFactory(workspace=other, user=room.viewer, role=Role.VIEWER)
    # The call names its workspace: the scope holds that one, whatever the user's others.
    assert _queries_per_call(room, noop) == few == 9


def test_the_cheaper_path_keeps_token_restriction_and_audit(room: Room, noop: str):
    other = WorkspaceFactory(firm=room.firm, slug="other")
    MembershipFactory(workspace=other, user=room.viewer, role=Role.VIEWER)
    token, _ = token_create(user=room.viewer, name="cost", workspaces=[other])
    with pytest.raises(ToolError) as refused:
        call_tool(name=noop, arguments=ARGUMENTS, user=room.viewer, token=token)
    assert refused.value.kind == "not_found"
    assert refused.value.details == {"field": "workspace", "allowed": ["other"]}
    call_tool(name=noop, arguments=ARGUMENTS, user=room.viewer)
    with tenant_scope(workspace_ids=[room.workspace.pk], firm_id=room.firm.pk):
        events = list(AuditEvent.objects.order_by("pk").values_list("action", "details"))
    tool_events = [(action, details) for action, details in events if action.startswith("tool.")]
    assert [action for action, _ in tool_events] == ["tool.error", "tool.call"]
    assert tool_events[0][1]["token_id"] == token.pk


def test_a_connection_used_within_the_second_skips_its_health_check():
    from agents.mcp import server

    wrapper = connections["default"]
    wrapper.ensure_connection()
    checks = []
    for used_ago, errors in [(0.0, False), (2 * server.RECENT_USE_S, False), (0.0, True)]:
        server._last_use[wrapper] = time.monotonic() - used_ago
        wrapper.health_check_done, wrapper.errors_occurred = False, errors
        try:
            server._skip_recent_health_checks()
            checks.append(not wrapper.health_check_done)
        finally:
            wrapper.errors_occurred = False
    # Just used: no SELECT 1; used long ago, or after an error: checked as Django would.
    assert checks == [False, True, True]
