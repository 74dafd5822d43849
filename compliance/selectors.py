"""Reads of the compliance app. Playbooks are the firm's (looked up by the user's firm);
scans and flags are tenant rows, read in the workspace's scope."""

from __future__ import annotations

from django.db.models import Case, IntegerField, OuterRef, QuerySet, Subquery, Value, When
from django.http import Http404
from django.urls import reverse
from django.utils.translation import gettext

from compliance.models import (
    SEVERITY_ORDER,
    Flag,
    FlagEvent,
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
    """The workspace's flags, most severe first, then by contract and article, each with
    its last review note (``last_note``, ``last_note_by``)."""
    flags = _with_last_note(Flag.objects.filter(workspace=workspace))
    if statuses:
        flags = flags.filter(status__in=statuses)
    if severities:
        flags = flags.filter(severity__in=severities)
    if contract_id:
        flags = flags.filter(document__ref=contract_id)
    return flags.annotate(rank=_by_severity()).order_by("-rank", "document__ref", "page", "pk")


def _with_last_note(flags: QuerySet[Flag]) -> QuerySet[Flag]:
    """Each flag with its rule, contract and last review note (``last_note``, by
    ``last_note_by``), read in the same query."""
    last = FlagEvent.objects.filter(flag=OuterRef("pk")).exclude(note="").order_by("-pk")
    return flags.select_related("document", "rule", "rule__playbook").annotate(
        last_note=Subquery(last.values("note")[:1]),
        last_note_by=Subquery(last.values("actor__email")[:1]),
    )


def flag_get(*, workspace: Workspace, flag_id: int) -> Flag:
    try:
        return _with_last_note(Flag.objects.all()).get(pk=flag_id, workspace=workspace)
    except Flag.DoesNotExist:
        raise FlagNotFound from None


def scan_latest(*, workspace: Workspace) -> Scan | None:
    return Scan.objects.filter(workspace=workspace).order_by("-created_at", "-pk").first()


def flags_as_notes(document: Document) -> dict[int | None, list[ArticleNote]]:
    """The contract's flags, by the article they cite (the viewer): open and escalated ones
    at their severity, resolved and dismissed ones as information, each with its last
    review note."""
    notes: dict[int | None, list[ArticleNote]] = {}
    url = reverse("flags", args=[document.workspace.slug]) + f"?contract={document.ref}"
    for flag in flag_list(workspace=document.workspace, contract_id=document.ref):
        text = f"{flag.rule.title} — {flag.reason}"
        status = FlagStatus(flag.status)
        if status != FlagStatus.OPEN:
            text = f"{text} ({status.label})"
        last_note = getattr(flag, "last_note", None)  # annotated by flag_list
        if last_note:
            text = gettext("%(flag)s — note: %(note)s") % {"flag": text, "note": last_note}
        decided = status in (FlagStatus.RESOLVED, FlagStatus.DISMISSED)
        label, level = (
            (str(status.label), "info")
            if decided
            else (str(Severity(flag.severity).label), flag.severity)
        )
        note = ArticleNote("flag", label, level, text, f"{url}#flag-{flag.pk}")
        notes.setdefault(flag.chunk_id, []).append(note)
    return notes


def flag_contracts(*, workspace: Workspace) -> list[tuple[str, str]]:
    """The contracts that have flags, as (ref, title), for the flags page's contract filter."""
    flagged = Flag.objects.filter(workspace=workspace).values("document_id")
    documents = Document.objects.filter(workspace=workspace, pk__in=flagged).only(
        "ref", "title", "filename"
    )
    return sorted((document.ref, document.display_title) for document in documents)
