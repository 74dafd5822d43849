"""Audit rows written from outside the target's tenant scope (admin pages, sign-in)."""

from __future__ import annotations

from typing import Any

from workspaces.models import AuditEvent, Firm, User, Workspace
from workspaces.services import audit_record
from workspaces.tenancy import scope_in_firm


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
    scope = scope_in_firm(
        firm=firm,
        workspace_ids=(workspace.pk,) if workspace else (),
        reason=f"audit of {action}",
        actor_label=actor_label or str(actor or ""),
    )
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
