"""The tool rate limit is shared by every process: calls made by another process (a web
worker, the MCP server) count against the same token's minute."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection
from django.test import override_settings

from agents.tools import ToolError, call_tool
from tests.helpers.rooms import Room
from workspaces.tokens import token_create

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import django, sys
django.setup()
from agents.tools import call_tool
from workspaces.models import PersonalToken
token = PersonalToken.objects.select_related("user").get(pk=int(sys.argv[1]))
for _ in range(3):
    call_tool(name="list_workspaces", arguments={}, user=token.user, token=token)
print("ok")
"""


def test_calls_of_another_process_count_against_the_same_limit(room: Room):
    token, _raw = token_create(user=room.viewer, name="shared")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "SECRET_KEY": "test",
           "LEXROOM_DB_NAME": connection.settings_dict["NAME"],
           "LEXROOM_TOOL_RATE_PER_MINUTE": "3"}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(token.pk)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and "ok" in done.stdout, done.stderr[-2000:]
    with override_settings(LEXROOM_TOOL_RATE_PER_MINUTE=3), pytest.raises(ToolError) as refused:
        call_tool(name="list_workspaces", arguments={}, user=room.viewer, token=token)
    assert refused.value.kind == "rate_limited" and refused.value.retry_after > 0
