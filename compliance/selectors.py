"""Reads of the compliance app. Playbooks are the firm's (looked up by the user's firm);
scans and flags are tenant rows, read in the workspace's scope."""

from __future__ import annotations

from django.db.models import Case, IntegerField, QuerySet, Value, When
from django.http import Http404
from django.urls import reverse
from django.utils.translation import gettext

from compliance.models import (
    SEVERITY_ORDER,
    Flag,
    FlagStatus,
    Playbook,
    Scan,
    Severity,
    WorkspacePlaybook,
)
from documents.models import Document
from documents.viewer_notes import ArticleNote
from workspaces.models import Workspace


class FlagNotFound(Http404):
    def __init__(self) -> None:
        super().__init__(gettext("No such flag."))


def playbooks_current(*, firm_id: int) -> QuerySet[Playbook]:
    return Playbook.objects.filter(firm_id=firm_id, current=True).order_by("key")


def playbooks_for_workspace(*, workspace: Workspace) -> list[Playbook]:
    """The current version of each playbook assigned to the workspace."""
    keys = WorkspacePlaybook.objects.filter(workspace=workspace).values_list(
        "playbook_key", flat=True
    )
    return list(playbooks_current(firm_id=workspace.firm_id).filter(key__in=list(keys)))


def _by_severity() -> Case:
    return Case(
        *(When(severity=value, then=Value(rank)) for value, rank in SEVERITY_ORDER.items()),
        output_field=IntegerField(),
    )


def flag_list(
    *,
    workspace: Workspace,
    statuses: list[str] | None = None,
    severities: list[str] | None = None,
    contract_id: str | None = None,
) -> QuerySet[Flag]:
    """The workspace's flags, most severe first, then by contract and article."""
    flags = Flag.objects.filter(workspace=workspace).select_related(
        "document", "rule", "rule__playbook"
    )
    if statuses:
        flags = flags.filter(status__in=statuses)
    if severities:
        flags = flags.filter(severity__in=severities)
    if contract_id:
        flags = flags.filter(document__ref=contract_id)
    return flags.annotate(rank=_by_severity()).order_by("-rank", "document__ref", "page", "pk")


def flag_get(*, workspace: Workspace, flag_id: int) -> Flag:
    try:
        return Flag.objects.select_related("document", "rule").get(pk=flag_id, workspace=workspace)
    except Flag.DoesNotExist:
        raise FlagNotFound from None


def scan_latest(*, workspace: Workspace) -> Scan | None:
    return Scan.objects.filter(workspace=workspace).order_by("-created_at", "-pk").first()


def flags_as_notes(document: Document) -> dict[int | None, list[ArticleNote]]:
    """The contract's open and escalated flags, by the article they cite (the viewer)."""
    flags = flag_list(
        workspace=document.workspace,
        statuses=[FlagStatus.OPEN, FlagStatus.ESCALATED],
        contract_id=document.ref,
    )
    notes: dict[int | None, list[ArticleNote]] = {}
    for flag in flags:
        text = f"{flag.rule.title} — {flag.reason}"
        if flag.status == FlagStatus.ESCALATED:
            text = f"{text} ({FlagStatus(flag.status).label})"
        url = reverse("flags", args=[document.workspace.slug]) + f"?contract={document.ref}"
        note = ArticleNote(
            "flag", str(Severity(flag.severity).label), flag.severity, text, f"{url}#flag-{flag.pk}"
        )
        notes.setdefault(flag.chunk_id, []).append(note)
    return notes


def flag_contracts(*, workspace: Workspace) -> list[tuple[str, str]]:
    """The contracts that have flags, as (ref, title), for the flags page's contract filter."""
    flagged = Flag.objects.filter(workspace=workspace).values("document_id")
    documents = Document.objects.filter(workspace=workspace, pk__in=flagged).only(
        "ref", "title", "filename", "contract_type_title", "provenance"
    )
    return sorted((document.ref, document.display_title) for document in documents)
