"""Writes of the compliance app: playbooks imported as new versions, assigned to workspaces,
scans that raise flags, and the flags' review workflow (every change kept, and audited)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from compliance.models import (
    Flag,
    FlagEvent,
    FlagStatus,
    Playbook,
    Rule,
    Scan,
    ScanStatus,
    WorkspacePlaybook,
)
from compliance.playbooks import PlaybookSpec, RuleSpec
from workspaces.audit import audit_record
from workspaces.models import Firm, User, Workspace


class ComplianceError(ValueError):
    """A request the compliance app refuses; the message says why, in the user's language."""


def _rule_data(rule: Rule | RuleSpec) -> tuple[Any, ...]:
    return (
        rule.key,
        rule.title,
        rule.clause_type,
        rule.kind,
        rule.severity,
        rule.params,
        rule.explanation,
        rule.applies_to,
        rule.except_for,
    )


@transaction.atomic
def playbook_import(
    *, firm: Firm, spec: PlaybookSpec, user: User | None = None
) -> tuple[Playbook, bool]:
    """Store ``spec`` as the firm's playbook ``spec.key``: a new version when it differs from
    the current one (the old versions stay, with the flags that cite their rules). Returns
    the current version and whether one was created."""
    current = (
        Playbook.objects.select_for_update()
        .filter(firm=firm, key=spec.key, current=True)
        .prefetch_related("rules")
        .first()
    )
    if current is not None:
        same_head = (current.title, current.language, current.description,
                     current.clause_types, current.applies_to) == (
                         spec.title, spec.language, spec.description, spec.clause_types,
                         spec.applies_to)  # fmt: skip
        stored = sorted(_rule_data(r) for r in current.rules.all())
        if same_head and stored == sorted(_rule_data(r) for r in spec.rules):
            return current, False
        Playbook.objects.filter(pk=current.pk).update(current=False)
    playbook = Playbook.objects.create(
        firm=firm,
        key=spec.key,
        version=(current.version + 1) if current is not None else _next_version(firm, spec.key),
        title=spec.title,
        language=spec.language,
        description=spec.description,
        clause_types=spec.clause_types,
        applies_to=spec.applies_to,
        created_by=user,
    )
    Rule.objects.bulk_create(
        Rule(
            playbook=playbook,
            key=r.key,
            title=r.title,
            clause_type=r.clause_type,
            kind=r.kind,
            severity=r.severity,
            params=r.params,
            explanation=r.explanation,
            applies_to=r.applies_to,
            except_for=r.except_for,
        )
        for r in spec.rules
    )
    audit_record(
        firm=firm,
        actor=user,
        actor_label="" if user else "system",
        action="playbook.version",
        target=f"{spec.key} v{playbook.version}",
    )
    return playbook, True


def _next_version(firm: Firm, key: str) -> int:
    last = Playbook.objects.filter(firm=firm, key=key).order_by("-version").first()
    return last.version + 1 if last is not None else 1


def playbook_spec(playbook: Playbook) -> PlaybookSpec:
    """A stored version as a file holds it (export)."""
    rules = [
        RuleSpec(r.key, r.title, r.clause_type, r.kind, r.severity, dict(r.params), r.explanation,
                 applies_to=dict(r.applies_to or {}), except_for=dict(r.except_for or {}))
        for r in playbook.rules.order_by("pk")
    ]  # fmt: skip
    return PlaybookSpec(playbook.key, playbook.title, playbook.language, playbook.description,
                        rules, list(playbook.clause_types),
                        dict(playbook.applies_to or {}))  # fmt: skip


def playbook_assign(*, workspace: Workspace, key: str, user: User | None = None) -> None:
    """Check ``workspace`` against the firm's playbook ``key`` (its current version at each
    scan). Must run in the workspace's scope."""
    if not Playbook.objects.filter(firm_id=workspace.firm_id, key=key, current=True).exists():
        raise ComplianceError(gettext("No playbook %(key)r in this firm.") % {"key": key})
    WorkspacePlaybook.objects.get_or_create(workspace=workspace, playbook_key=key)
    audit_record(
        firm=workspace.firm,
        workspace=workspace,
        actor=user,
        actor_label="" if user else "system",
        action="playbook.assign",
        target=key,
    )


@transaction.atomic
def workspace_playbooks_set(*, workspace: Workspace, keys: list[str], user: User) -> list[str]:
    """Check ``workspace`` against exactly the firm's playbooks ``keys`` (the page's form):
    the others are unassigned, their flags kept. Refuses a key the firm does not have.
    Returns the keys assigned. Must run in the workspace's scope."""
    current = Playbook.objects.filter(firm_id=workspace.firm_id, current=True)
    known = set(current.values_list("key", flat=True))
    wanted = sorted(set(keys))
    unknown = [key for key in wanted if key not in known]
    if unknown:
        raise ComplianceError(
            gettext("No playbook %(key)r in this firm.") % {"key": ", ".join(unknown)}
        )
    assigned = WorkspacePlaybook.objects.filter(workspace=workspace)
    before = sorted(assigned.values_list("playbook_key", flat=True))
    assigned.exclude(playbook_key__in=wanted).delete()
    for key in wanted:
        WorkspacePlaybook.objects.get_or_create(workspace=workspace, playbook_key=key)
    if before != wanted:
        audit_record(
            firm=workspace.firm,
            workspace=workspace,
            actor=user,
            action="playbook.assign",
            target=",".join(wanted),
            details={"before": before, "after": wanted},
        )
    return wanted


# --- Flags ---------------------------------------------------------------------------------

# From each status, where a lawyer may take a flag (reopening is always possible).
TRANSITIONS = {
    FlagStatus.OPEN: {FlagStatus.RESOLVED, FlagStatus.DISMISSED, FlagStatus.ESCALATED},
    FlagStatus.ESCALATED: {FlagStatus.RESOLVED, FlagStatus.DISMISSED, FlagStatus.OPEN},
    FlagStatus.RESOLVED: {FlagStatus.OPEN},
    FlagStatus.DISMISSED: {FlagStatus.OPEN},
}
MAX_NOTE_CHARS = 2000


@transaction.atomic
def flag_update(*, flag: Flag, user: User, status: str, note: str) -> Flag:
    """Move ``flag`` to ``status`` with the reviewer's ``note`` (required: why). Kept in the
    flag's history and audited. Must run in the workspace's scope."""
    note = " ".join(str(note).split())[:MAX_NOTE_CHARS]
    locked = Flag.objects.select_for_update().get(pk=flag.pk)
    # The same status again records a note (a comment in the flag's history).
    allowed = TRANSITIONS.get(FlagStatus(locked.status), set()) | {FlagStatus(locked.status)}
    if status not in allowed:
        raise ComplianceError(
            gettext("A flag %(from)s can become %(allowed)s, not %(to)s.")
            % {"from": locked.status, "allowed": ", ".join(sorted(allowed)), "to": status}
        )
    if not note:
        raise ComplianceError(gettext("Say why (a note is required)."))
    FlagEvent.objects.create(
        workspace_id=locked.workspace_id,
        flag=locked,
        actor=user,
        from_status=locked.status,
        to_status=status,
        note=note,
    )
    locked.status, locked.updated_at = status, timezone.now()
    locked.save(update_fields=["status", "updated_at"])
    audit_record(
        firm=user.firm,
        workspace=locked.workspace,
        actor=user,
        action="flag.update",
        target=str(locked.pk),
        details={"from": flag.status, "to": status},
    )
    flag.status, flag.updated_at = locked.status, locked.updated_at
    return flag


def scan_create(
    *, workspace: Workspace, playbook: Playbook, user: User | None, document: Any = None
) -> Scan:
    return Scan.objects.create(
        workspace=workspace,
        playbook=playbook,
        document=document,
        requested_by=user,
        status=ScanStatus.QUEUED,
    )
