"""The two hot lookups (token with user and firm; workspace with the member's role) run as SQL
built once from the models. The token lookup keeps the ORM form for a column that would need a
converter; the workspace lookup applies the converters itself. Both ways must answer alike, so
they are exercised here rather than trusted."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers.rooms import Room
from workspaces import selectors, tokens
from workspaces.models import Role, Workspace
from workspaces.selectors import RoleRequired, WorkspaceNotFound, workspace_get_for_member
from workspaces.tenancy import user_scope
from workspaces.tokens import token_authenticate, token_create, token_revoke

pytestmark = pytest.mark.django_db


@pytest.fixture(params=["built sql", "orm fallback"])
def lookup_form(request, monkeypatch) -> str:
    if request.param == "orm fallback":
        monkeypatch.setattr(tokens, "_lookup_sql", lambda: None)
    return str(request.param)


@pytest.fixture(params=["built sql", "converted columns"])
def workspace_lookup_form(request, monkeypatch) -> tuple[str, list[Any]]:
    """With "converted columns", every workspace column goes through a converter that
    records its value (as a column needing one would): the values must come out the same."""
    converted: list[Any] = []
    if request.param == "converted columns":

        def record(value: Any, expression: Any, connection: Any) -> Any:
            converted.append(value)
            return value

        table = Workspace._meta.db_table
        every_column = tuple(
            (position, field.get_col(table), (record,))
            for position, field in enumerate(Workspace._meta.concrete_fields)
        )
        monkeypatch.setattr(selectors, "_workspace_converters", lambda: every_column)
    return str(request.param), converted


def test_token_lookup_answers_alike_in_both_forms(room: Room, lookup_form: str):
    token, raw = token_create(user=room.owner, name="laptop")
    found = token_authenticate(raw)
    assert found is not None and found.pk == token.pk
    assert found.user.pk == room.owner.pk and found.user.firm.pk == room.firm.pk
    assert token_authenticate(raw + "x") is None
    token_revoke(token=token, actor=room.owner)
    assert token_authenticate(raw) is None


def test_workspace_lookup_answers_alike_in_both_forms(
    room: Room, workspace_lookup_form: tuple[str, list[Any]]
):
    form, converted = workspace_lookup_form
    slug = room.workspace.slug
    with user_scope(room.viewer):
        found = workspace_get_for_member(user=room.viewer, slug=slug)
        assert found.pk == room.workspace.pk
        assert found.member_role == Role.VIEWER  # type: ignore[attr-defined]
        assert (found.slug, found.title) == (room.workspace.slug, room.workspace.title)
        assert found.created_at == room.workspace.created_at
        assert workspace_get_for_member(user=room.viewer, workspace_id=found.pk).pk == found.pk
        with pytest.raises(RoleRequired):
            workspace_get_for_member(user=room.viewer, slug=slug, min_role=Role.EDITOR)
        with pytest.raises(WorkspaceNotFound):
            workspace_get_for_member(user=room.viewer, slug=room.foreign_workspace.slug)
        with pytest.raises(WorkspaceNotFound):
            workspace_get_for_member(user=room.viewer, slug="no-such-room")
    with user_scope(room.outsider), pytest.raises(WorkspaceNotFound):
        workspace_get_for_member(user=room.outsider, slug=slug)
    if form == "converted columns":  # the converters saw the columns of the workspace found
        assert room.workspace.slug in converted
