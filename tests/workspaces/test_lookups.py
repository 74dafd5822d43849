"""The two hot lookups (token with user and firm; workspace with the member's role) run as SQL
built once from the models; the ORM form stays for a column that would need a converter.
Both forms must answer alike, so the fallback is exercised here rather than trusted."""

from __future__ import annotations

import pytest

from tests.helpers.rooms import Room
from workspaces import selectors, tokens
from workspaces.models import Role
from workspaces.selectors import RoleRequired, WorkspaceNotFound, workspace_get_for_member
from workspaces.tenancy import user_scope
from workspaces.tokens import token_authenticate, token_create, token_revoke

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["built sql", "orm fallback"])
def lookup_form(request, monkeypatch) -> str:
    if request.param == "orm fallback":
        monkeypatch.setattr(tokens, "_lookup_sql", lambda: None)
        monkeypatch.setattr(selectors, "_member_lookup_sql", lambda **_: None)
    return str(request.param)


def test_token_lookup_answers_alike_in_both_forms(room: Room, lookup_form: str):
    token, raw = token_create(user=room.owner, name="laptop")
    found = token_authenticate(raw)
    assert found is not None and found.pk == token.pk
    assert found.user.pk == room.owner.pk and found.user.firm.pk == room.firm.pk
    assert token_authenticate(raw + "x") is None
    token_revoke(token=token, actor=room.owner)
    assert token_authenticate(raw) is None


def test_workspace_lookup_answers_alike_in_both_forms(room: Room, lookup_form: str):
    slug = room.workspace.slug
    with user_scope(room.viewer):
        found = workspace_get_for_member(user=room.viewer, slug=slug)
        assert found.pk == room.workspace.pk
        assert found.member_role == Role.VIEWER  # type: ignore[attr-defined]
        assert workspace_get_for_member(user=room.viewer, workspace_id=found.pk).pk == found.pk
        with pytest.raises(RoleRequired):
            workspace_get_for_member(user=room.viewer, slug=slug, min_role=Role.EDITOR)
        with pytest.raises(WorkspaceNotFound):
            workspace_get_for_member(user=room.viewer, slug=room.foreign_workspace.slug)
        with pytest.raises(WorkspaceNotFound):
            workspace_get_for_member(user=room.viewer, slug="no-such-room")
    with user_scope(room.outsider), pytest.raises(WorkspaceNotFound):
        workspace_get_for_member(user=room.outsider, slug=slug)
