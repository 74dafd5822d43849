"""Row-level security as Postgres enforces it for the app's own (non-superuser) role."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, ProgrammingError, connection, transaction

from tests.helpers.rooms import Room
from workspaces.models import AuditEvent, Membership, Role
from workspaces.tenancy import (
    ScopeWidening,
    current_workspace_ids,
    tenant_bypass,
    tenant_scope,
    user_scope,
)

pytestmark = pytest.mark.django_db


def _count(table: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {table}")
        return int(cursor.fetchone()[0])


def test_app_role_is_not_superuser_and_cannot_bypass_rls():
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user")
        assert cursor.fetchone() == (False, False)


def test_every_workspace_table_forces_row_level_security():
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity,
                   (SELECT count(*) FROM pg_policy p WHERE p.polrelid = c.oid)
            FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
            WHERE a.attname = 'workspace_id' AND c.relkind = 'r' AND NOT a.attisdropped
            """
        )
        rows = cursor.fetchall()
    assert {"workspaces_membership", "workspaces_auditevent"} <= {r[0] for r in rows}
    for table, enabled, forced, policies in rows:
        assert (enabled, forced, policies) == (True, True, 1), table


def test_no_scope_shows_no_tenant_rows(room: Room):
    assert Membership.objects.count() == 0
    assert _count("workspaces_membership") == 0


def test_scope_shows_only_its_workspace(room: Room):
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        assert _count("workspaces_membership") == 3
        assert set(Membership.objects.values_list("workspace_id", flat=True)) == {room.workspace.pk}
    with tenant_scope(workspace_ids=[room.foreign_workspace.pk]):
        assert list(Membership.objects.values_list("user__email", flat=True)) == [
            "someone@beta.test"
        ]


def test_insert_for_another_workspace_is_refused_by_postgres(room: Room):
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        with pytest.raises(ProgrammingError, match="row-level security"):
            with transaction.atomic():
                Membership.objects.create(
                    workspace=room.foreign_workspace, user=room.outsider, role=Role.VIEWER
                )
        assert Membership.objects.filter(user=room.outsider).count() == 0


def test_update_cannot_move_a_row_to_another_workspace(room: Room):
    with tenant_scope(workspace_ids=[room.workspace.pk]), pytest.raises(ProgrammingError):
        with transaction.atomic():
            Membership.objects.filter(user=room.viewer).update(workspace=room.foreign_workspace)


def test_raw_sql_outside_scope_cannot_write(room: Room):
    with pytest.raises(ProgrammingError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO workspaces_membership (workspace_id, user_id, role, created_at)"
            " VALUES (%s, %s, 'owner', now())",
            [room.workspace.pk, room.outsider.pk],
        )


def test_scope_is_transaction_local(room: Room):
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        assert Membership.objects.count() == 3
    # The settings died with the (savepoint of the) scope: nothing visible after it.
    assert Membership.objects.count() == 0


def test_nested_scope_restores_the_outer_one(room: Room):
    with tenant_scope(workspace_ids=[room.workspace.pk, room.foreign_workspace.pk]):
        with tenant_scope(workspace_ids=[room.foreign_workspace.pk]):
            assert Membership.objects.count() == 1
        assert Membership.objects.count() == 4


def test_nested_scope_may_not_widen_the_outer_one(room: Room):
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        with pytest.raises(ScopeWidening), tenant_scope(workspace_ids=[room.foreign_workspace.pk]):
            pass
        # The refusal left the outer scope as it was.
        assert Membership.objects.count() == 3


def test_nested_scope_may_not_act_for_another_user(room: Room):
    with user_scope(room.viewer):
        with pytest.raises(ScopeWidening), tenant_scope(workspace_ids=(), user_id=room.owner.pk):
            pass


def test_user_scope_inside_a_user_scope_reuses_and_restores_it(room: Room):
    with user_scope(room.owner) as outer:
        with user_scope(room.owner, only=[room.foreign_workspace.pk]) as inner:
            assert inner == ()
            assert not Membership.objects.exclude(user=room.owner).exists()
        assert current_workspace_ids() == outer == (room.workspace.pk,)
        assert Membership.objects.count() == 3


def test_user_scope_inside_the_same_user_scope_writes_no_settings(
    room: Room, django_assert_num_queries
):
    with user_scope(room.owner) as outer:
        with django_assert_num_queries(0), user_scope(room.owner) as inner:
            assert inner == outer
        assert Membership.objects.count() == 3


def test_a_scope_with_the_outer_settings_keeps_them_after_it(room: Room):
    with tenant_scope(workspace_ids=[room.workspace.pk], user_id=room.owner.pk):
        with tenant_scope(workspace_ids=[room.workspace.pk], user_id=room.owner.pk):
            assert Membership.objects.count() == 3
        assert Membership.objects.count() == 3
        with tenant_scope(workspace_ids=(), user_id=room.owner.pk):
            assert Membership.objects.count() == 1  # the owner's own row only
        assert Membership.objects.count() == 3


def test_a_final_scope_ends_with_its_transaction(room: Room):
    # The tool registry's case: the narrower scope is the last thing in the user's scope.
    with user_scope(room.owner), transaction.atomic():
        with tenant_scope(workspace_ids=[room.workspace.pk], final=True):
            assert Membership.objects.count() == 3
        transaction.set_rollback(True)
    assert Membership.objects.count() == 0


def test_an_error_in_a_final_scope_undoes_the_enclosing_transaction(room: Room):
    with pytest.raises(ZeroDivisionError), user_scope(room.owner):
        with tenant_scope(workspace_ids=[room.workspace.pk], final=True):
            Membership.objects.filter(user=room.viewer).update(role=Role.EDITOR)
            raise ZeroDivisionError
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        assert Membership.objects.get(user=room.viewer).role == Role.VIEWER


def test_bypass_may_widen_and_gives_the_outer_scope_back(room: Room):
    with tenant_scope(workspace_ids=()):
        with tenant_bypass(firm=room.firm, reason="set-up", actor_label="cli"):
            assert Membership.objects.count() == 3
        assert Membership.objects.count() == 0


def test_user_scope_covers_only_the_users_workspaces(room: Room):
    with user_scope(room.viewer) as ids:
        assert ids == (room.workspace.pk,)
        assert Membership.objects.count() == 3
    with user_scope(room.outsider) as ids:
        assert ids == ()
        assert Membership.objects.count() == 0


def test_bypass_is_firm_wide_and_audited(room: Room):
    with tenant_bypass(firm=room.firm, reason="quarterly report", actor_label="cli") as ids:
        assert ids == (room.workspace.pk,)
        assert not Membership.objects.filter(workspace=room.foreign_workspace).exists()
        event = AuditEvent.objects.get(action="tenancy.bypass")
        assert event.details["reason"] == "quarterly report"


def test_unique_constraints_still_hold_under_rls(room: Room):
    with tenant_scope(workspace_ids=[room.workspace.pk]), pytest.raises(IntegrityError):
        with transaction.atomic():
            Membership.objects.create(workspace=room.workspace, user=room.viewer, role="owner")
