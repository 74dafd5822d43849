"""Personal tokens in the admin: listed without their hash, revoked (audited), never
created or deleted there, and only the firm's own."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.helpers.rooms import Room
from workspaces.models import AuditEvent, PersonalToken
from workspaces.tenancy import firm_scope
from workspaces.tokens import token_authenticate, token_create

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/workspaces/personaltoken/"


def test_token_list_shows_tokens_and_their_use_but_never_the_hash(
    firm_admin_client: Client, room: Room
):
    token, raw = token_create(user=room.viewer, name="ci runner", workspaces=[room.workspace])
    token_authenticate(raw, client="198.51.100.4")
    token.refresh_from_db()

    listing = firm_admin_client.get(CHANGELIST)
    detail = firm_admin_client.get(f"{CHANGELIST}{token.pk}/change/")

    assert listing.status_code == 200 and detail.status_code == 200
    for page in (listing.content.decode(), detail.content.decode()):
        assert "ci runner" in page
        assert token.prefix in page
        assert "deal-alpha" in page
        assert "198.51.100.4" in page  # last used from
        assert token.token_hash not in page
        assert raw not in page


def test_token_revoke_action_revokes_through_the_audited_service(
    firm_admin_client: Client, room: Room
):
    token, raw = token_create(user=room.viewer, name="laptop")

    response = firm_admin_client.post(
        CHANGELIST, {"action": "revoke", "_selected_action": [str(token.pk)]}
    )

    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert token_authenticate(raw) is None
    with firm_scope(room.firm.pk):
        event = AuditEvent.objects.get(action="token.revoke")
    assert (event.actor, event.target) == (room.owner, f"{token.prefix}… laptop")


def test_tokens_cannot_be_added_or_deleted_in_the_admin(firm_admin_client: Client, room: Room):
    token, _ = token_create(user=room.viewer, name="laptop")

    assert firm_admin_client.get(f"{CHANGELIST}add/").status_code == 403
    assert (
        firm_admin_client.post(f"{CHANGELIST}{token.pk}/delete/", {"post": "yes"}).status_code
        == 403
    )
    # The bulk delete action is not offered, so posting it does nothing.
    firm_admin_client.post(
        CHANGELIST, {"action": "delete_selected", "_selected_action": [token.pk]}
    )
    assert PersonalToken.objects.filter(pk=token.pk).exists()


def test_token_secret_fields_are_not_editable(firm_admin_client: Client, room: Room):
    token, _ = token_create(user=room.viewer, name="laptop")
    original = PersonalToken.objects.get(pk=token.pk)

    response = firm_admin_client.post(
        f"{CHANGELIST}{token.pk}/change/",
        {"name": "renamed", "token_hash": "0" * 64, "prefix": "lxr_forged", "read_only": "on"},
    )

    assert response.status_code == 302
    token.refresh_from_db()
    assert token.name == "renamed"
    assert (token.token_hash, token.prefix, token.read_only) == (
        original.token_hash,
        original.prefix,
        original.read_only,
    )
    with firm_scope(room.firm.pk):
        event = AuditEvent.objects.get(action="token.change")
    assert event.details == {"changed": {"name": ["laptop", "renamed"]}}


def test_firm_admin_sees_only_their_firms_tokens(firm_admin_client: Client, room: Room):
    token_create(user=room.viewer, name="alpha token")
    foreign, foreign_raw = token_create(user=room.foreigner, name="beta token")

    listing = firm_admin_client.get(CHANGELIST).content.decode()

    assert "alpha token" in listing
    assert "beta token" not in listing and foreign.prefix not in listing
    assert firm_admin_client.get(f"{CHANGELIST}{foreign.pk}/change/").status_code == 302
    firm_admin_client.post(CHANGELIST, {"action": "revoke", "_selected_action": [str(foreign.pk)]})
    assert token_authenticate(foreign_raw) is not None


def test_plain_member_cannot_see_tokens_in_the_admin(viewer_client: Client, room: Room):
    token_create(user=room.viewer, name="laptop")
    assert viewer_client.get(CHANGELIST).status_code == 302  # to the admin login


def test_token_list_costs_the_same_queries_for_one_token_or_many(
    firm_admin_client: Client, room: Room
):
    token_create(user=room.viewer, name="first", workspaces=[room.workspace])
    with CaptureQueriesContext(connection) as one:
        firm_admin_client.get(CHANGELIST)
    for index in range(3):
        token_create(user=room.editor, name=f"more {index}", workspaces=[room.workspace])
    with CaptureQueriesContext(connection) as many:
        firm_admin_client.get(CHANGELIST)
    assert len(many) == len(one)
