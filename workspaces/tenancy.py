"""The one way to put tenant data in scope: a transaction with RLS settings for it.

Every entry point (request, task, tool call, management command) enters one of these
context managers; selectors then see only the workspaces in scope, and Postgres enforces it.

Scopes nest safely: each saves the outer scope's settings and puts them back when it ends,
and an inner scope may only *narrow* the outer one. Asking for a workspace the outer scope
does not grant raises :class:`ScopeWidening`; the one way to widen is the audited
:func:`tenant_bypass`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db import connection, connections, transaction

from workspaces.rls import SETTING_FIRM_ID, SETTING_FIRMS, SETTING_USER_ID, SETTING_WORKSPACE_IDS

if TYPE_CHECKING:
    from workspaces.models import Firm, User, Workspace


class ScopeWidening(PermissionError):
    """An inner scope asked for more than its outer scope grants (a programming error)."""


@dataclass(frozen=True)
class Scope:
    """What the current transaction may see.

    ``firm_wide``: the scope stands for every workspace of ``firm_id``, including one created
    inside it (a firm admin's request, a bypass), so an inner scope may name any of them.
    ``user_only``: the workspaces ``user_id`` may open, possibly narrowed by a token's
    ``only`` list — what :func:`user_scope` reuses instead of querying again.
    ``all_firms``: an install superuser's scope, which sees every firm's and workspace's row
    (tenant tables stay limited to ``workspace_ids``); any other scope sees its firm's only.
    """

    workspace_ids: tuple[int, ...]
    user_id: int | None
    firm_id: int | None
    firm_wide: bool = False
    user_only: tuple[int, ...] | None = None
    all_firms: bool = False


_scope: ContextVar[Scope | None] = ContextVar("lexroom_tenant_scope", default=None)


def current_scope() -> Scope | None:
    return _scope.get()


def current_workspace_ids() -> tuple[int, ...]:
    """The workspaces in scope for this context (empty outside any scope)."""
    scope = _scope.get()
    return scope.workspace_ids if scope is not None else ()


_SETTING_NAMES = (SETTING_WORKSPACE_IDS, SETTING_USER_ID, SETTING_FIRM_ID, SETTING_FIRMS)


def _write_settings(values: tuple[str, str, str, str], using: str | None = None) -> None:
    with (connection if using is None else connections[using]).cursor() as cursor:
        # is_local = true: the values die with the transaction, never leak to the next request.
        cursor.execute(
            "SELECT " + ", ".join(["set_config(%s, %s, true)"] * len(values)),
            [item for pair in zip(_SETTING_NAMES, values, strict=True) for item in pair],
        )


def _settings(scope: Scope | None) -> tuple[str, str, str, str]:
    if scope is None:
        return "", "", "", ""
    return (
        ",".join(str(i) for i in scope.workspace_ids),
        "" if scope.user_id is None else str(scope.user_id),
        "" if scope.firm_id is None else str(scope.firm_id),
        "all" if scope.all_firms else "own",
    )


def _apply(scope: Scope | None) -> None:
    _write_settings(_settings(scope))


def scope_mirror(using: str) -> None:
    """Write the current scope's settings in the open transaction of another database
    connection (a read replica, :mod:`search.replica`): its queries then see what this
    context's scope grants, and nothing outside a scope."""
    _write_settings(_settings(_scope.get()), using=using)


def _check_narrows(outer: Scope, inner: Scope) -> None:
    if outer.firm_id is not None and inner.firm_id not in (None, outer.firm_id):
        raise ScopeWidening("An inner tenant scope cannot switch to another firm.")
    if inner.user_id is not None and inner.user_id != outer.user_id:
        raise ScopeWidening("An inner tenant scope cannot act for another user.")
    if inner.all_firms and not outer.all_firms:
        raise ScopeWidening("An inner tenant scope cannot see every firm.")
    extra = set(inner.workspace_ids) - set(outer.workspace_ids)
    if not extra:
        return
    if outer.firm_wide and outer.firm_id is not None:
        from workspaces.models import Workspace

        # A firm-wide scope grants the firm's workspaces, also one created inside it.
        same_firm = Workspace.objects.filter(pk__in=extra, firm_id=outer.firm_id).count()
        if same_firm == len(extra):
            return
    raise ScopeWidening(
        f"An inner tenant scope asked for workspaces {sorted(extra)} that the outer scope "
        "does not grant; use tenant_bypass for an audited firm-wide scope."
    )


@contextmanager
def _enter(
    scope: Scope, *, check: bool = True, fresh: bool = False, final: bool = False
) -> Iterator[Scope]:
    """Make ``scope`` current for the block, in a transaction (a savepoint when nested).

    ``fresh``: the caller has just opened the transaction for this scope and written other
    settings in it (user_scope's probe): write ours whatever the outer scope's are.
    ``final``: nothing but the end of the enclosing transaction follows the block, so it
    needs no savepoint of its own (an error undoes the enclosing transaction, as it would
    anyway) and the outer settings need not be written back.
    """
    outermost = not connection.in_atomic_block
    outer = _scope.get()
    if check and outer is not None:
        _check_narrows(outer, scope)
    # Inside the outer scope's transaction with the same settings (a tool reusing a request's
    # scope), writing them again, and back at the end, would change nothing.
    unchanged = (
        not fresh and not outermost and outer is not None and _settings(outer) == _settings(scope)
    )
    with transaction.atomic(savepoint=not (fresh or final)):
        if not unchanged:
            _apply(scope)
        token = _scope.set(scope)
        try:
            yield scope
        finally:
            _scope.reset(token)
        # Normal exit: hand the outer scope (or the bare transaction) its settings back. On
        # an error the savepoint's rollback restores them by itself, and the transaction may
        # accept no query; at the end of the outermost transaction they die with it.
        if not (outermost or unchanged or final) and not transaction.get_rollback():
            _apply(outer)


def _ids(workspace_ids: Iterable[int]) -> tuple[int, ...]:
    return tuple(sorted({int(i) for i in workspace_ids}))


@contextmanager
def tenant_scope(
    *,
    workspace_ids: Iterable[int],
    user_id: int | None = None,
    firm_id: int | None = None,
    final: bool = False,
) -> Iterator[None]:
    """Run the block in a transaction where exactly ``workspace_ids`` are visible.

    Inside another scope, ``workspace_ids`` must be among the outer scope's (or, in a
    firm-wide scope, the same firm's): otherwise :class:`ScopeWidening`. ``final``: the block
    is the last thing its caller's own transaction does (see :func:`_enter`).
    """
    scope = Scope(
        _ids(workspace_ids),
        None if user_id is None else int(user_id),
        None if firm_id is None else int(firm_id),
    )
    with _enter(scope, final=final):
        yield


def workspace_scope(workspace: Workspace) -> AbstractContextManager[None]:
    """This workspace's scope: the one way a task, command or service enters one workspace."""
    return tenant_scope(workspace_ids=(workspace.pk,), firm_id=workspace.firm_id)


def firm_scope(firm_id: int) -> AbstractContextManager[None]:
    """A scope over no workspace, for a firm's own rows (users, tokens, audit)."""
    return tenant_scope(workspace_ids=(), firm_id=firm_id)


def _workspaces_of(user: User, slug: str | None) -> list[int]:
    """The workspaces ``user`` may open (with ``slug``, the one so named), read in the
    user's probe scope."""
    from workspaces.models import Membership, Workspace

    if user.is_firm_admin:
        workspaces = Workspace.objects.filter(firm_id=user.firm_id)
        if slug is not None:
            workspaces = workspaces.filter(slug=slug)
        return list(workspaces.values_list("id", flat=True))
    # The user's firm's workspaces only, whatever a membership says (the probe scope shows
    # no other firm's anyway).
    memberships = Membership.objects.filter(user=user, workspace__firm_id=user.firm_id)
    if slug is not None:
        memberships = memberships.filter(workspace__slug=slug)
    return list(memberships.values_list("workspace_id", flat=True))


@contextmanager
def user_scope(
    user: User,
    *,
    only: Iterable[int] | None = None,
    slug: str | None = None,
    every_firm: bool = False,
) -> Iterator[tuple[int, ...]]:
    """Scope for a signed-in user: their workspaces (all the firm's for a firm admin).

    ``only`` narrows it further (a token restricted to some workspaces); so does ``slug``
    (a call that names its workspace: the one of the user's workspaces with that slug, if
    any, instead of listing them all). Inside a scope that already is this user's (a tool
    called during a request), that scope is reused, narrowed by ``only``: no second lookup
    of the user's workspaces (``slug`` then narrows nothing). ``every_firm``: an install
    superuser in the admin, who manages every firm (see :class:`Scope`); ignored for anyone
    else.
    """
    allowed = set(only) if only else None
    outer = _scope.get()
    if outer is not None and outer.user_only is not None and outer.user_id == user.pk:
        ids = tuple(i for i in outer.user_only if allowed is None or i in allowed)
        firm_wide = outer.firm_wide and ids == outer.user_only
        scope = Scope(
            ids,
            user.pk,
            user.firm_id,
            firm_wide=firm_wide,
            user_only=ids,
            all_firms=outer.all_firms,
        )
        if scope == outer and connection.in_atomic_block:
            yield ids  # the request's own scope, as it is: nothing to open or write
            return
        with _enter(scope):
            yield ids
        return
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        # First let the user read their own memberships (nothing else), then widen to their
        # workspaces. The probe narrows any outer scope, and the scope below replaces it.
        all_firms = bool(every_firm and user.is_superuser)
        probe = Scope((), user.pk, user.firm_id, all_firms=all_firms)
        if outer is not None:
            _check_narrows(outer, probe)
        _apply(probe)
        found = _workspaces_of(user, slug)
        ids = _ids(i for i in found if allowed is None or i in allowed)
        firm_wide = bool(user.is_firm_admin and allowed is None and slug is None)
        scope = Scope(
            ids, user.pk, user.firm_id, firm_wide=firm_wide, user_only=ids, all_firms=all_firms
        )
        with _enter(scope, fresh=True, final=outermost):
            yield ids


@contextmanager
def tenant_bypass(*, firm: Firm, reason: str, actor_label: str) -> Iterator[tuple[int, ...]]:
    """Explicit, audited scope over every workspace of a firm (firm-wide reports, set-up).

    The one scope that may widen an outer one. The audit row is written inside the same
    transaction: no bypass without its trace.
    """
    from workspaces.audit import audit_record
    from workspaces.models import Workspace

    outer = _scope.get()
    user_id = outer.user_id if outer else None
    # The firm's workspaces, read where the firm's rows show (an outer scope may not show them).
    with _enter(Scope((), user_id, firm.pk), check=False):
        ids = _ids(Workspace.objects.filter(firm=firm).values_list("id", flat=True))
    with _enter(Scope(ids, user_id, firm.pk, firm_wide=True), check=False):
        audit_record(
            firm=firm,
            actor_label=actor_label,
            action="tenancy.bypass",
            details={"reason": reason, "workspace_count": len(ids)},
        )
        yield ids


def scope_in_firm(
    *,
    firm: Firm,
    workspace_ids: Iterable[int],
    user_id: int | None = None,
    reason: str,
    actor_label: str,
) -> AbstractContextManager[object]:
    """A scope of ``workspace_ids`` in ``firm``, for writes made from outside it (admin
    pages, sign-in). From another firm's scope (an install superuser's admin pages), where
    scopes never cross firms, the audited :func:`tenant_bypass` for ``reason``."""
    outer = _scope.get()
    if outer is not None and outer.firm_id not in (None, firm.pk):
        return tenant_bypass(firm=firm, reason=reason, actor_label=actor_label)
    return tenant_scope(workspace_ids=workspace_ids, user_id=user_id, firm_id=firm.pk)
