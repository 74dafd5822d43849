"""The one way to put tenant data in scope: a transaction with RLS settings for it.

Every entry point (request, task, tool call, management command) enters one of these
context managers; selectors then see only the workspaces in scope, and Postgres enforces it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

from django.db import connection, transaction

from workspaces.rls import SETTING_FIRM_ID, SETTING_USER_ID, SETTING_WORKSPACE_IDS

if TYPE_CHECKING:
    from workspaces.models import Firm, User

_scope: ContextVar[tuple[int, ...] | None] = ContextVar("lexroom_tenant_scope", default=None)


def current_workspace_ids() -> tuple[int, ...]:
    """The workspaces in scope for this context (empty outside any scope)."""
    return _scope.get() or ()


def _read_settings() -> tuple[str, str, str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(current_setting(%s, true), ''),"
            " coalesce(current_setting(%s, true), ''),"
            " coalesce(current_setting(%s, true), '')",
            [SETTING_WORKSPACE_IDS, SETTING_USER_ID, SETTING_FIRM_ID],
        )
        workspace_ids, user_id, firm_id = cursor.fetchone()
    return workspace_ids, user_id, firm_id


def _write_settings(workspace_ids: str, user_id: str, firm_id: str) -> None:
    with connection.cursor() as cursor:
        # is_local = true: the values die with the transaction, never leak to the next request.
        cursor.execute(
            "SELECT set_config(%s, %s, true), set_config(%s, %s, true), set_config(%s, %s, true)",
            [
                SETTING_WORKSPACE_IDS,
                workspace_ids,
                SETTING_USER_ID,
                user_id,
                SETTING_FIRM_ID,
                firm_id,
            ],
        )


@contextmanager
def tenant_scope(
    *, workspace_ids: Iterable[int], user_id: int | None = None, firm_id: int | None = None
) -> Iterator[None]:
    """Run the block in a transaction where exactly ``workspace_ids`` are visible."""
    ids = tuple(sorted({int(i) for i in workspace_ids}))
    with transaction.atomic():
        previous = _read_settings()
        _write_settings(
            ",".join(str(i) for i in ids),
            "" if user_id is None else str(int(user_id)),
            "" if firm_id is None else str(int(firm_id)),
        )
        token = _scope.set(ids)
        try:
            yield
        finally:
            _scope.reset(token)
        # Nested scope: hand the outer scope its settings back. (On error the savepoint
        # rollback restores them by itself.)
        _write_settings(*previous)


@contextmanager
def user_scope(user: User, *, only: Iterable[int] | None = None) -> Iterator[tuple[int, ...]]:
    """Scope for a signed-in user: their workspaces (all the firm's for a firm admin).

    ``only`` narrows it further (a token restricted to some workspaces).
    """
    from workspaces.models import Membership, Workspace

    with transaction.atomic():
        # First let the user read their own memberships, then widen to their workspaces.
        _write_settings("", str(user.pk), str(user.firm_id))
        if user.is_firm_admin:
            ids = list(Workspace.objects.filter(firm_id=user.firm_id).values_list("id", flat=True))
        else:
            ids = list(Membership.objects.filter(user=user).values_list("workspace_id", flat=True))
        if only:
            allowed = set(only)
            ids = [i for i in ids if i in allowed]
        with tenant_scope(workspace_ids=ids, user_id=user.pk, firm_id=user.firm_id):
            yield current_workspace_ids()


@contextmanager
def tenant_bypass(*, firm: Firm, reason: str, actor_label: str) -> Iterator[tuple[int, ...]]:
    """Explicit, audited scope over every workspace of a firm (firm-wide reports, set-up).

    The audit row is written inside the same transaction: no bypass without its trace.
    """
    from workspaces.models import Workspace
    from workspaces.services import audit_record

    ids = list(Workspace.objects.filter(firm=firm).values_list("id", flat=True))
    with tenant_scope(workspace_ids=ids, firm_id=firm.pk):
        audit_record(
            firm=firm,
            actor_label=actor_label,
            action="tenancy.bypass",
            details={"reason": reason, "workspace_count": len(ids)},
        )
        yield current_workspace_ids()
