"""manage.py call_tool: --workspace given to a tool that works outside workspaces."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from tests.helpers.rooms import Room
from tests.sources.factories import import_demo

pytestmark = pytest.mark.django_db


def test_workspace_flag_on_a_workspace_free_tool_is_ignored_with_a_notice(room: Room):
    import_demo()
    out, err = StringIO(), StringIO()
    call_command(
        "call_tool",
        "get_article",
        json.dumps({"code": "code-des-essais", "number": "L101-1"}),
        "--workspace",
        "deal-alpha",
        "--user",
        room.viewer.email,
        stdout=out,
        stderr=err,
    )
    result = json.loads(out.getvalue())
    assert result["article"]["number"] == "L101-1", result
    assert "get_article" in err.getvalue() and "--workspace deal-alpha" in err.getvalue()
