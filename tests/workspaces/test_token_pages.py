"""The personal access tokens page: list, create (shown once), revoke; own tokens only."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import MembershipFactory, WorkspaceFactory
from tests.helpers.rooms import Room, login
from workspaces.forms import TOKEN_MAX_EXPIRES_DAYS
from workspaces.models import AuditEvent, PersonalToken
from workspaces.tenancy import tenant_bypass
from workspaces.tokens import token_authenticate, token_create

pytestmark = pytest.mark.django_db

TOKENS = "/tokens/"


@pytest.fixture
def english(settings):
    settings.LANGUAGE_CODE = "en"  # the texts checked word for word below


def _create(client: Client, **fields) -> tuple[int, str]:
    data = {"name": "Claude", "expires_days": "30", **fields}
    response = client.post(TOKENS, data)
    return response.status_code, response.content.decode()


def _raw_token(page: str) -> str:
    match = re.search(r'id="new-token-value"[^>]*value="(lxr_[^"]+)"', page)
    assert match, "the new token is not on the page"
    return match.group(1)


def _audit_actions(room: Room) -> list[str]:
    with tenant_bypass(firm=room.firm, reason="test", actor_label="test"):
        return list(
            AuditEvent.objects.filter(firm=room.firm, action__startswith="token.")
            .order_by("created_at")
            .values_list("action", flat=True)
        )


def test_the_page_lists_only_the_users_own_tokens(room: Room, owner_client: Client, english):
    token_create(user=room.owner, name="mine-laptop")
    token_create(user=room.viewer, name="someone-elses")
    page = owner_client.get(TOKENS).content.decode()
    assert "mine-laptop" in page and "someone-elses" not in page
    assert "all yours" in page and "read-write" in page and "active" in page


def test_a_new_token_is_shown_once_with_the_mcp_snippets_and_works(
    room: Room, owner_client: Client, english
):
    status, page = _create(owner_client, read_only="on")
    assert status == 200
    raw = _raw_token(page)
    token = token_authenticate(raw)
    assert token is not None and token.user == room.owner and token.read_only
    assert token.name == "Claude" and token.workspace_ids == []
    assert "it will not be shown again" in page
    mcp_url = "http://testserver/mcp"
    assert (
        f"claude mcp add --transport http lexroom {mcp_url} "
        f"--header &quot;Authorization: Bearer {raw}&quot;"
    ) in page
    cursor = re.search(r'id="snippet-cursor"[^>]*><code>(.*?)</code>', page, re.S)
    assert cursor is not None
    config = json.loads(cursor.group(1).replace("&quot;", '"'))
    assert config == {
        "mcpServers": {"lexroom": {"url": mcp_url, "headers": {"Authorization": f"Bearer {raw}"}}}
    }
    # The plaintext is on that response only: a reload lists the token, never its value.
    reloaded = owner_client.get(TOKENS).content.decode()
    assert raw not in reloaded and token.prefix in reloaded
    assert _audit_actions(room) == ["token.create"]


def test_the_token_page_response_is_never_cached(owner_client: Client):
    response = owner_client.post(TOKENS, {"name": "x", "expires_days": "1"})
    assert "no-store" in response["Cache-Control"]


def test_a_viewer_restricts_a_read_only_token_to_their_workspace(room: Room, english):
    client = login(room.viewer)
    status, _ = _create(client, workspaces=[str(room.workspace.pk)], read_only="on")
    assert status == 200
    token = PersonalToken.objects.get(user=room.viewer)
    assert token.workspace_ids == [room.workspace.pk] and token.read_only
    assert "deal-alpha" in client.get(TOKENS).content.decode()


@pytest.mark.parametrize("foreign", ["other-firm", "same-firm-not-member", "missing"])
def test_a_workspace_the_user_is_not_in_is_refused_and_nothing_is_created(
    room: Room, english, foreign
):
    other = WorkspaceFactory(firm=room.firm, slug="not-mine")
    workspace_id = {
        "other-firm": room.foreign_workspace.pk,
        "same-firm-not-member": other.pk,
        "missing": 999_999,
    }[foreign]
    status, page = _create(login(room.viewer), workspaces=[str(workspace_id)])
    assert status == 400
    assert "You can only choose workspaces you are a member of." in page
    assert not PersonalToken.objects.filter(user=room.viewer).exists()
    assert "new-token-value" not in page


def test_the_checkboxes_offer_only_the_users_workspaces(room: Room, owner_client: Client):
    mine = WorkspaceFactory(firm=room.firm, slug="also-mine", title="Also mine")
    MembershipFactory(workspace=mine, user=room.owner)
    WorkspaceFactory(firm=room.firm, slug="not-mine", title="Not mine")
    page = owner_client.get(TOKENS).content.decode()
    assert 'type="checkbox" name="workspaces"' in page
    assert "Deal Alpha (deal-alpha)" in page and "Also mine (also-mine)" in page
    assert "Not mine" not in page and "Deal Beta" not in page


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": ""}, "This field is required."),
        ({"name": "   "}, "This field is required."),
        ({"expires_days": "0"}, "Ensure this value is greater than or equal to 1."),
        ({"expires_days": str(TOKEN_MAX_EXPIRES_DAYS + 1)}, "less than or equal to 365"),
        ({"expires_days": "soon"}, "Enter a whole number."),
        ({"expires_days": ""}, "This field is required."),
        ({"workspaces": ["abc"]}, "You can only choose workspaces you are a member of."),
    ],
)
def test_bad_input_gets_a_message_on_the_page_never_a_500(
    room: Room, owner_client: Client, english, fields, message
):
    status, page = _create(owner_client, **fields)
    assert status == 400
    assert message in page
    assert not PersonalToken.objects.exists()


def test_revoking_asks_first_then_revokes_and_audits(room: Room, owner_client: Client, english):
    token, raw = token_create(user=room.owner, name="old laptop")
    url = reverse("token_revoke", args=[token.pk])
    confirm = owner_client.get(url).content.decode()
    assert "Revoke the token “old laptop”?" in confirm and 'method="post"' in confirm
    token.refresh_from_db()
    assert token.revoked_at is None  # the GET changed nothing
    response = owner_client.post(url, follow=True)
    assert response.redirect_chain == [(TOKENS, 302)]
    page = response.content.decode()
    assert "Token “old laptop” revoked." in page and "revoked on" in page
    assert token_authenticate(raw) is None
    assert _audit_actions(room) == ["token.create", "token.revoke"]
    with tenant_bypass(firm=room.firm, reason="test", actor_label="test"):
        event = AuditEvent.objects.get(action="token.revoke")
    assert event.actor == room.owner and "token_id" not in event.details  # a session write
    # Revoking again is harmless: the page says it is already revoked.
    assert "This token was revoked on" in owner_client.get(url).content.decode()


@pytest.mark.parametrize("who", ["viewer", "outsider", "foreigner"])
def test_someone_elses_token_is_a_404_like_a_missing_one(room: Room, who):
    token, raw = token_create(user=room.owner, name="owner's")
    client = login(getattr(room, who))
    missing = client.get(reverse("token_revoke", args=[999_999]))
    for response in (
        client.get(reverse("token_revoke", args=[token.pk])),
        client.post(reverse("token_revoke", args=[token.pk])),
    ):
        assert response.status_code == missing.status_code == 404
    assert token_authenticate(raw) is not None


def test_a_bearer_token_does_not_open_the_tokens_page(room: Room):
    _, raw = token_create(user=room.owner, name="api")
    bearer = Client(HTTP_AUTHORIZATION=f"Bearer {raw}")
    for response in (bearer.get(TOKENS), bearer.post(TOKENS, {"name": "x", "expires_days": 1})):
        assert response.status_code == 302 and response["Location"].startswith("/login/")
    assert PersonalToken.objects.count() == 1


def test_creating_a_token_needs_the_csrf_token(room: Room):
    client = Client(enforce_csrf_checks=True)
    client.force_login(room.owner)
    assert client.post(TOKENS, {"name": "x", "expires_days": "1"}).status_code == 403


def test_the_token_list_query_count_does_not_grow_with_tokens(
    room: Room, owner_client: Client, django_assert_max_num_queries
):
    other = WorkspaceFactory(firm=room.firm, slug="deal-two")
    MembershipFactory(workspace=other, user=room.owner)
    token_create(user=room.owner, name="first", workspaces=[room.workspace])
    with django_assert_max_num_queries(12):
        owner_client.get(TOKENS)
    for n in range(8):
        token_create(user=room.owner, name=f"t{n}", workspaces=[room.workspace, other])
    with django_assert_max_num_queries(12):
        response = owner_client.get(TOKENS)
    assert response.content.decode().count("deal-alpha, deal-two") == 8
