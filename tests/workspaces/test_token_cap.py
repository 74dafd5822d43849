"""Per-user limits on tokens: a cap on live tokens (page, command, service), and one tool-call
budget per user whatever token or session the calls come with."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.utils import timezone

from agents.tools import ToolError, call_tool
from lab.documents.bench import bench_workspace_create, bench_workspace_find
from tests.helpers.commands import run_command
from tests.helpers.rooms import Room
from workspaces.models import PersonalToken
from workspaces.services import TenancyError
from workspaces.tokens import token_create, token_revoke

pytestmark = pytest.mark.django_db


@pytest.fixture
def cap_of_three(settings):
    settings.LEXROOM_MAX_TOKENS_PER_USER = 3
    settings.LANGUAGE_CODE = "en"  # the refusal is read word for word below


def _fill(room: Room, count: int) -> list[PersonalToken]:
    return [token_create(user=room.viewer, name=f"t{i}")[0] for i in range(count)]


def test_the_cap_refuses_one_more_token_naming_the_cap_and_how_to_revoke(room, cap_of_three):
    _fill(room, 3)
    with pytest.raises(TenancyError) as refused:
        token_create(user=room.viewer, name="one too many")
    message = str(refused.value)
    assert "3 active tokens" in message and "revoke_token" in message
    assert PersonalToken.objects.filter(user=room.viewer).count() == 3


def test_revoked_and_expired_tokens_leave_room_for_new_ones(room, cap_of_three):
    first, second, _third = _fill(room, 3)
    token_revoke(token=first, actor=room.viewer)
    PersonalToken.objects.filter(pk=second.pk).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    token_create(user=room.viewer, name="new one")
    token_create(user=room.viewer, name="and another")
    with pytest.raises(TenancyError):
        token_create(user=room.viewer, name="now full again")


def test_the_cap_is_per_user(room, cap_of_three):
    _fill(room, 3)
    token_create(user=room.owner, name="someone else's")  # the viewer's tokens do not count


def test_the_page_shows_the_refusal_and_creates_nothing(room, cap_of_three):
    _fill(room, 3)
    client = Client()
    client.force_login(room.viewer)
    response = client.post("/tokens/", {"name": "Claude", "expires_days": "30"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "3 active tokens" in page and "new-token-value" not in page
    assert PersonalToken.objects.filter(user=room.viewer).count() == 3


def test_the_command_refuses_with_the_same_message(room, cap_of_three):
    _fill(room, 3)
    with pytest.raises(CommandError, match="3 active tokens"):
        run_command("create_token", "--user", room.viewer.email)


def test_every_token_of_a_user_draws_on_one_tool_budget(room, settings):
    settings.LEXROOM_TOOL_RATE_PER_MINUTE = 3
    settings.LEXROOM_MAX_TOKENS_PER_USER = 25
    tokens = _fill(room, 25)
    for token in tokens[:3]:
        call_tool(name="list_workspaces", arguments={}, user=room.viewer, token=token)
    with pytest.raises(ToolError) as refused:
        call_tool(name="list_workspaces", arguments={}, user=room.viewer, token=tokens[3])
    assert refused.value.kind == "rate_limited"


def test_sessions_and_tokens_of_a_user_share_the_budget_and_others_keep_theirs(room, settings):
    settings.LEXROOM_TOOL_RATE_PER_MINUTE = 2
    token, _raw = token_create(user=room.viewer, name="laptop")
    call_tool(name="list_workspaces", arguments={}, user=room.viewer, token=token)
    call_tool(name="list_workspaces", arguments={}, user=room.viewer, token=None)  # a session
    with pytest.raises(ToolError) as refused:
        call_tool(name="list_workspaces", arguments={}, user=room.viewer, token=None)
    assert refused.value.kind == "rate_limited"
    # Another user of the same firm still has a whole minute.
    call_tool(name="list_workspaces", arguments={}, user=room.owner, token=None)


@pytest.mark.slow  # a whole fuzz run (about 50 s)
@pytest.mark.django_db(transaction=True)
def test_the_fuzz_command_leaves_no_live_token_behind():
    # Its bench user outlives a run when another run kept a workspace; a token left live
    # each time would make the eleventh run fail on the cap.
    firm, _ = bench_workspace_find("kept")
    _kept, bench_user = bench_workspace_create(firm=firm, slug="kept", actor="test")
    call_command("fuzz", "--calls", "3", "--uploads", "1", "--json",
                 stdout=io.StringIO(), stderr=io.StringIO())  # fmt: skip
    fuzz_tokens = PersonalToken.objects.filter(user=bench_user, name="fuzz")
    assert fuzz_tokens.count() == 1
    assert not fuzz_tokens.filter(revoked_at__isnull=True).exists()
