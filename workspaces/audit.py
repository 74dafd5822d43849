"""Audit rows written from outside the target's tenant scope (admin pages, sign-in)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from workspaces.models import AuditEvent, Firm, User, Workspace
from workspaces.services import audit_record
from workspaces.tenancy import current_scope, tenant_bypass, tenant_scope


def audit_record_scoped(
    *,
    firm: Firm,
    action: str,
    workspace: Workspace | None = None,
    actor: User | None = None,
    actor_label: str = "",
    target: str = "",
    details: dict[str, Any] | None = None,
) -> AuditEvent:
    """``audit_record`` in a scope of exactly ``firm`` (and ``workspace``), whatever the caller's.

    RLS checks writes too: a sign-in has no scope at all, and an install superuser's admin
    scope is their own firm's, so the row for another firm could not be written otherwise.
    """
    outer = current_scope()
    scope: AbstractContextManager[object]
    if outer is not None and outer.firm_id not in (None, firm.pk):
        # An install superuser's change in another firm: scopes never cross firms, except
        # through the bypass, which leaves its own audit row.
        scope = tenant_bypass(
            firm=firm, reason=f"audit of {action}", actor_label=actor_label or str(actor or "")
        )
    else:
        scope = tenant_scope(workspace_ids=(workspace.pk,) if workspace else (), firm_id=firm.pk)
    with scope:
        return audit_record(
            firm=firm,
            workspace=workspace,
            actor=actor,
            actor_label=actor_label,
            action=action,
            target=target,
            details=details,
        )
