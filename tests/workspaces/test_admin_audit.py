"""Admin writes (users, passwords, workspaces, memberships) and own password changes are
audited: who, what, the values that changed, never a password hash."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from tests.factories import UserFactory
from tests.helpers.rooms import PASSWORD, Room, login
from workspaces.models import AuditEvent, Membership, User
from workspaces.tenancy import firm_scope, tenant_scope, workspace_scope

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a much longer passphrase 42"


def form_errors(response) -> object:
    """The admin page's form and inline errors, to say why a save was refused."""
    if response.context is None or "adminform" not in response.context:
        return response.status_code
    inlines = response.context.get("inline_admin_formsets") or []
    return (
        response.context["adminform"].form.errors,
        [(i.formset.errors, i.formset.non_form_errors()) for i in inlines],
    )


def firm_events(room: Room, action: str) -> list[AuditEvent]:
    with firm_scope(room.firm.pk):
        return list(AuditEvent.objects.filter(action=action, workspace=None))


def workspace_events(room: Room, action: str) -> list[AuditEvent]:
    with workspace_scope(room.workspace):
        return list(AuditEvent.objects.filter(action=action, workspace=room.workspace))


def user_form(user: User, **changes: object) -> dict[str, object]:
    data: dict[str, object] = {
        "email": user.email,
        "full_name": user.full_name,
        "firm": user.firm_id,
        "is_active": "on",
    }
    data.update(changes)
    return {key: value for key, value in data.items() if value is not False}


def workspace_form(
    room: Room, rows: list[dict[str, object]], initial: int, slug: str = "deal-alpha"
) -> dict[str, object]:
    data: dict[str, object] = {
        "slug": slug,
        "title": slug.replace("-", " ").title(),
        "firm": room.firm.pk,
        "memberships-TOTAL_FORMS": len(rows),
        "memberships-INITIAL_FORMS": initial,
        "memberships-MIN_NUM_FORMS": 0,
        "memberships-MAX_NUM_FORMS": 1000,
    }
    for index, row in enumerate(rows):
        for key, value in row.items():
            data[f"memberships-{index}-{key}"] = value
    return data


def test_admin_user_change_records_the_changed_fields_with_their_values(
    firm_admin_client: Client, room: Room, firm_admin: User
):
    url = f"/admin/workspaces/user/{room.viewer.pk}/change/"
    response = firm_admin_client.post(
        url, user_form(room.viewer, full_name="Vera Viewer", is_firm_admin="on")
    )

    assert response.status_code == 302, form_errors(response)
    [event] = firm_events(room, "user.change")
    assert event.actor == firm_admin
    assert event.target == "viewer@alpha.test"
    assert event.details == {
        "changed": {"full_name": ["", "Vera Viewer"], "is_firm_admin": [False, True]}
    }


def test_admin_user_creation_is_audited_without_any_password(firm_admin_client: Client, room: Room):
    response = firm_admin_client.post(
        "/admin/workspaces/user/add/",
        {"email": "new@alpha.test", "full_name": "New Hire", "firm": room.firm.pk},
    )

    assert response.status_code == 302, form_errors(response)
    [event] = firm_events(room, "user.create")
    assert event.target == "new@alpha.test"
    assert event.details["values"]["full_name"] == "New Hire"
    assert event.details["values"]["firm"] == "Cabinet Alpha"
    assert "password" not in event.details["values"]


def test_admin_password_set_is_audited_without_the_hash(
    firm_admin_client: Client, room: Room, firm_admin: User
):
    url = f"/admin/workspaces/user/{room.viewer.pk}/password/"
    response = firm_admin_client.post(url, {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD})

    assert response.status_code == 302
    room.viewer.refresh_from_db()
    assert room.viewer.check_password(NEW_PASSWORD)
    [event] = firm_events(room, "user.password_set")
    assert (event.actor, event.target) == (firm_admin, "viewer@alpha.test")
    assert event.details == {"usable": True}
    assert room.viewer.password not in json.dumps(event.details)


def test_admin_disabling_a_password_is_audited_as_unusable(firm_admin_client: Client, room: Room):
    url = f"/admin/workspaces/user/{room.viewer.pk}/password/"
    response = firm_admin_client.post(url, {"usable_password": "false", "unset-password": "1"})

    assert response.status_code == 302
    [event] = firm_events(room, "user.password_set")
    assert event.details == {"usable": False}


def test_admin_password_form_with_an_error_writes_no_audit_row(
    firm_admin_client: Client, room: Room
):
    url = f"/admin/workspaces/user/{room.viewer.pk}/password/"
    response = firm_admin_client.post(url, {"password1": NEW_PASSWORD, "password2": "different"})

    assert response.status_code == 200
    assert firm_events(room, "user.password_set") == []


def test_own_password_change_is_audited_without_the_hash(room: Room):
    client = login(room.viewer)
    response = client.post(
        "/password/",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )

    assert response.status_code == 302
    [event] = firm_events(room, "user.password_change")
    assert (event.actor, event.target, event.details) == (room.viewer, "viewer@alpha.test", {})
    room.viewer.refresh_from_db()
    assert room.viewer.password not in json.dumps(event.details)


def test_membership_inline_add_change_and_remove_are_audited_in_the_workspace(
    firm_admin_client: Client, room: Room, firm_admin: User
):
    with workspace_scope(room.workspace):
        existing = {m.user_id: m for m in Membership.objects.filter(workspace=room.workspace)}
    newcomer = UserFactory(firm=room.firm, email="newcomer@alpha.test")
    ws = room.workspace.pk
    rows = [
        {"id": existing[room.owner.pk].pk, "workspace": ws, "user": room.owner.pk, "role": "owner"},
        {"id": existing[room.editor.pk].pk, "workspace": ws, "user": room.editor.pk,
         "role": "viewer"},
        {"id": existing[room.viewer.pk].pk, "workspace": ws, "user": room.viewer.pk,
         "role": "viewer", "DELETE": "on"},
        {"workspace": ws, "user": newcomer.pk, "role": "editor"},
    ]  # fmt: skip

    response = firm_admin_client.post(
        f"/admin/workspaces/workspace/{ws}/change/", workspace_form(room, rows, initial=3)
    )

    assert response.status_code == 302, form_errors(response)
    [added] = workspace_events(room, "membership.create")
    assert added.target == "newcomer@alpha.test"
    assert added.details["values"]["role"] == "editor"
    [changed] = workspace_events(room, "membership.change")
    assert changed.target == "editor@alpha.test"
    assert changed.details == {"changed": {"role": ["editor", "viewer"]}}
    [removed] = workspace_events(room, "membership.delete")
    assert removed.target == "viewer@alpha.test"
    assert removed.details["values"]["role"] == "viewer"
    assert {e.actor for e in (added, changed, removed)} == {firm_admin}


def test_workspace_created_with_members_in_the_admin_is_audited(
    firm_admin_client: Client, room: Room
):
    rows: list[dict[str, object]] = [{"user": room.editor.pk, "role": "owner"}]
    data = workspace_form(room, rows, initial=0, slug="deal-new")

    response = firm_admin_client.post("/admin/workspaces/workspace/add/", data)

    assert response.status_code == 302, form_errors(response)
    workspace = room.firm.workspaces.get(slug="deal-new")
    with tenant_scope(workspace_ids=(workspace.pk,), firm_id=room.firm.pk):
        actions = sorted(AuditEvent.objects.filter(workspace=workspace).values_list("action"))
        assert Membership.objects.get(workspace=workspace).user == room.editor
    assert actions == [("membership.create",), ("workspace.create",)]


def test_workspace_deletion_in_the_admin_is_a_firm_level_audit_row(
    firm_admin_client: Client, room: Room
):
    url = f"/admin/workspaces/workspace/{room.workspace.pk}/delete/"
    response = firm_admin_client.post(url, {"post": "yes"})

    assert response.status_code == 302, form_errors(response)
    [event] = firm_events(room, "workspace.delete")
    assert event.target == "deal-alpha"


def test_superuser_change_to_another_firms_user_is_audited_in_that_firm(room: Room):
    superuser = User.objects.create_superuser("root@install.test", PASSWORD)
    client = login(superuser)

    url = f"/admin/workspaces/user/{room.foreigner.pk}/change/"
    response = client.post(url, user_form(room.foreigner, full_name="Someone Else"))

    assert response.status_code == 302, form_errors(response)
    with firm_scope(room.foreigner.firm_id):
        event = AuditEvent.objects.get(action="user.change")
    assert (event.actor, event.target) == (superuser, "someone@beta.test")


def test_membership_inline_refuses_another_firms_user(firm_admin_client: Client, room: Room):
    rows: list[dict[str, object]] = [
        {"workspace": room.workspace.pk, "user": room.foreigner.pk, "role": "viewer"}
    ]
    url = f"/admin/workspaces/workspace/{room.workspace.pk}/change/"

    response = firm_admin_client.post(url, workspace_form(room, rows, initial=0))

    assert response.status_code == 200  # the form comes back with the error
    with workspace_scope(room.workspace):
        assert not Membership.objects.filter(user=room.foreigner).exists()
        assert not AuditEvent.objects.filter(action__startswith="membership.").exists()
