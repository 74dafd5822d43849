"""The audit trail's one writer: a row for each write a lawyer would ask "who did this?" about.

Below tenancy (which audits its own bypasses) and the services: it imports neither.
"""

from __future__ import annotations

from typing import Any

from workspaces.credentials import acting_token_id
from workspaces.models import AuditEvent, Firm, User, Workspace


def audit_record(
    *,
    firm: Firm,
    action: str,
    actor: User | None = None,
    actor_label: str = "",
    workspace: Workspace | None = None,
    target: str = "",
    details: dict[str, Any] | None = None,
) -> AuditEvent:
    """Append an audit row. Must run inside a tenant scope that covers ``workspace``.

    A write made with a personal token records the token's id (``details.token_id``).
    """
    details = dict(details or {})
    token_id = acting_token_id()
    if token_id is not None:
        details.setdefault("token_id", token_id)
    return AuditEvent.objects.create(
        firm=firm,
        workspace=workspace,
        actor=actor,
        actor_label=actor_label or (actor.email if actor else "system"),
        action=action,
        target=target[:200],
        details=details,
    )
