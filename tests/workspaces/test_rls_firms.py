"""Row-level security on the firms and workspaces tables: inside a scope, one firm's rows."""

from __future__ import annotations

import pytest
from django.db import ProgrammingError, connection, transaction

from tests.factories import FirmFactory, UserFactory
from tests.helpers.rooms import Room, login
from workspaces.models import AuditEvent, Firm, Membership, Workspace
from workspaces.tenancy import ScopeWidening, firm_scope, tenant_scope, user_scope

pytestmark = pytest.mark.django_db


def _raw(sql: str, params: list[object] | None = None) -> list[tuple[object, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return list(cursor.fetchall())


def test_firm_tables_force_their_policy():
    rows = _raw(
        """
        SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity,
               (SELECT count(*) FROM pg_policy p WHERE p.polrelid = c.oid)
        FROM pg_class c WHERE c.relname IN ('workspaces_firm', 'workspaces_workspace')
        ORDER BY c.relname
        """
    )
    assert rows == [("workspaces_firm", True, True, 1), ("workspaces_workspace", True, True, 1)]


def test_a_user_sees_only_their_firms_rows(room: Room):
    with user_scope(room.outsider):  # a member of no workspace: the firm's rows still show
        assert list(Firm.objects.values_list("name", flat=True)) == ["Cabinet Alpha"]
        assert list(Workspace.objects.values_list("slug", flat=True)) == ["deal-alpha"]
        # Raw SQL and a join through the foreign key: Postgres filters, not the ORM.
        assert _raw("SELECT slug FROM workspaces_workspace") == [("deal-alpha",)]
        assert _raw("SELECT count(*) FROM workspaces_firm") == [(1,)]
        assert not Workspace.objects.filter(firm__name="Cabinet Beta").exists()
    with user_scope(room.foreigner):
        assert _raw("SELECT slug FROM workspaces_workspace") == [("deal-beta",)]


def test_a_scope_of_workspaces_sees_them_and_their_firm(room: Room):
    with tenant_scope(workspace_ids=[room.foreign_workspace.pk]):
        assert _raw("SELECT slug FROM workspaces_workspace") == [("deal-beta",)]
        assert list(Firm.objects.values_list("name", flat=True)) == ["Cabinet Beta"]
    with tenant_scope(workspace_ids=()):
        assert _raw("SELECT count(*) FROM workspaces_workspace") == [(0,)]
        assert _raw("SELECT count(*) FROM workspaces_firm") == [(0,)]


def test_another_firms_workspace_cannot_be_written(room: Room):
    with firm_scope(room.firm.pk):
        assert Workspace.objects.filter(pk=room.foreign_workspace.pk).update(title="taken") == 0
        assert Workspace.objects.filter(pk=room.foreign_workspace.pk).delete()[0] == 0
        with pytest.raises(ProgrammingError, match="row-level security"), transaction.atomic():
            Workspace.objects.create(firm=room.foreign_workspace.firm, slug="x", title="x")
        with pytest.raises(ProgrammingError, match="row-level security"), transaction.atomic():
            # Moving one's own workspace into another firm is refused too (WITH CHECK).
            Workspace.objects.filter(pk=room.workspace.pk).update(firm=room.foreign_workspace.firm)
        with pytest.raises(ProgrammingError, match="row-level security"), transaction.atomic():
            Firm.objects.create(name="Cabinet Gamma")
    room.foreign_workspace.refresh_from_db()
    assert room.foreign_workspace.title == "Deal Beta"
    assert not Workspace.objects.filter(slug="x").exists()


def test_outside_any_scope_every_firm_is_visible(room: Room):
    # System work (migrate, commands, a worker finding its task's workspace) runs unscoped.
    assert set(Workspace.objects.values_list("slug", flat=True)) == {"deal-alpha", "deal-beta"}
    assert Firm.objects.count() == 2


def test_every_firm_is_for_an_install_superuser_only(room: Room):
    with user_scope(room.owner, every_firm=True):
        assert Firm.objects.count() == 1  # not a superuser: the flag is ignored
    root = UserFactory(firm=room.firm, email="root@install.test", is_superuser=True)
    with user_scope(root, every_firm=True):
        assert Firm.objects.count() == 2
        assert Workspace.objects.count() == 2
    with user_scope(root):
        assert Firm.objects.count() == 1
        # Inside the narrower scope, asking again reuses it: no widening.
        with user_scope(root, every_firm=True):
            assert Firm.objects.count() == 1
    with firm_scope(room.firm.pk), pytest.raises(ScopeWidening):
        with user_scope(root, every_firm=True):
            pass


def test_a_superuser_manages_every_firm_in_the_admin_only(room: Room):
    root = UserFactory(firm=room.firm, email="root@install.test", is_superuser=True)
    client = login(root)
    page = client.get("/admin/workspaces/workspace/")
    assert page.status_code == 200
    assert b"deal-beta" in page.content and b"deal-alpha" in page.content
    added = client.post("/admin/workspaces/firm/add/", {"name": "Cabinet Gamma"})
    assert added.status_code == 302
    assert Firm.objects.filter(name="Cabinet Gamma").exists()


def test_a_firm_admin_cannot_reach_another_firms_workspace_in_the_admin(room: Room):
    admin = UserFactory(firm=room.firm, email="admin@alpha.test", is_firm_admin=True)
    FirmFactory(name="Cabinet Gamma")
    client = login(admin)
    listing = client.get("/admin/workspaces/workspace/")
    assert b"deal-alpha" in listing.content and b"deal-beta" not in listing.content
    page = client.get(f"/admin/workspaces/workspace/{room.foreign_workspace.pk}/change/")
    assert page.status_code in (302, 404)
    firms = client.get("/admin/workspaces/firm/").content
    assert b"Cabinet Alpha" in firms
    assert b"Cabinet Beta" not in firms and b"Cabinet Gamma" not in firms


def test_a_superuser_adds_a_workspace_with_members_to_another_firm(room: Room):
    root = UserFactory(firm=room.firm, email="root@install.test", is_superuser=True)
    data = {
        "slug": "deal-gamma",
        "title": "Deal Gamma",
        "firm": room.foreign_workspace.firm_id,
        "memberships-TOTAL_FORMS": 1,
        "memberships-INITIAL_FORMS": 0,
        "memberships-MIN_NUM_FORMS": 0,
        "memberships-MAX_NUM_FORMS": 1000,
        "memberships-0-user": room.foreigner.pk,
        "memberships-0-role": "owner",
    }
    response = login(root).post("/admin/workspaces/workspace/add/", data)
    assert response.status_code == 302
    workspace = Workspace.objects.get(slug="deal-gamma")
    assert workspace.firm_id == room.foreign_workspace.firm_id
    with user_scope(room.foreigner) as ids:
        assert workspace.pk in ids
    # Its memberships were written through the audited bypass (scopes never cross firms).
    with firm_scope(workspace.firm_id):
        bypasses = AuditEvent.objects.filter(action="tenancy.bypass")
        reasons = set(bypasses.values_list("actor_label", "details__reason"))
        assert ("root@install.test", "admin: memberships of a workspace") in reasons


def test_a_member_must_be_of_the_workspaces_firm(room: Room):
    root = UserFactory(firm=room.firm, email="root@install.test", is_superuser=True, language="en")
    data = {
        "slug": "deal-delta",
        "title": "Deal Delta",
        "firm": room.foreign_workspace.firm_id,
        "memberships-TOTAL_FORMS": 1,
        "memberships-INITIAL_FORMS": 0,
        "memberships-MIN_NUM_FORMS": 0,
        "memberships-MAX_NUM_FORMS": 1000,
        "memberships-0-user": room.owner.pk,  # of Cabinet Alpha, not Beta
        "memberships-0-role": "owner",
    }
    response = login(root).post("/admin/workspaces/workspace/add/", data)  # in English
    assert response.status_code == 200
    assert b"owner@alpha.test is not a member of the workspace&#x27;s firm." in response.content
    assert not Workspace.objects.filter(slug="deal-delta").exists()


def test_a_membership_across_firms_opens_nothing(room: Room):
    # Written past every check (raw, in the other workspace's scope): the scope ignores it.
    with tenant_scope(workspace_ids=[room.foreign_workspace.pk]):
        Membership.objects.create(workspace=room.foreign_workspace, user=room.viewer, role="owner")
    with user_scope(room.viewer) as ids:
        assert ids == (room.workspace.pk,)
        assert not Workspace.objects.filter(pk=room.foreign_workspace.pk).exists()
