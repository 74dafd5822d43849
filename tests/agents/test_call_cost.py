"""What one tool call costs the server outside its handler: queries per call, pinned."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from pydantic import BaseModel, ConfigDict

from agents.mcp.server import Caller, _call, authenticate
from agents.tools import call_tool
from agents.tools.registry import REGISTRY, Tool, ToolContext, register
from tests.conftest import Room
from workspaces.tokens import token_create

pytestmark = pytest.mark.django_db


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


def _dump(label: str, captured: CaptureQueriesContext) -> None:
    print(f"\n--- {label}: {len(captured)} queries")
    for query in captured.captured_queries:
        print("   ", query["sql"][:160])


def test_explore(room: Room, noop: str, client: Client):
    _, raw = token_create(user=room.viewer, name="cost")
    args = {"workspace": "deal-alpha"}
    with CaptureQueriesContext(connection) as cli:
        call_tool(name=noop, arguments=args, user=room.viewer)
    _dump("cli", cli)
    with CaptureQueriesContext(connection) as mcp:
        live = authenticate(raw, "127.0.0.1")
        assert live is not None
        _call(Caller(user=live.user, token=live, via="mcp"), noop, args)
    _dump("mcp", mcp)
    with CaptureQueriesContext(connection) as rest:
        response = client.post(
            f"/api/tools/{noop}",
            data=json.dumps(args),
            content_type="application/json",
            headers={"Authorization": f"Bearer {raw}"},
        )
        assert response.status_code == 200, response.content
    _dump("rest", rest)
