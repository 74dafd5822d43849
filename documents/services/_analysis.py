"""The workspace analysis's writes: amendment links, effective end dates, duplicate groups.

:mod:`documents.analysis` reads and decides; this stores its findings, only what changed.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db import transaction

from documents.analysis import DuplicateGroupFound, workspace_analysis
from documents.listeners import workspace_analyzed
from documents.models import Document, DocumentLink, DuplicateGroup, DuplicateMember, LinkKind
from workspaces.locks import LockNamespace, workspace_xact_lock
from workspaces.models import Workspace


@dataclass(frozen=True)
class AnalysisSummary:
    amendment_links: int
    duplicate_groups: int


# --- Saving: only what changed, so a second run is a no-op ------------------------------


def _links_save(workspace: Workspace, links: list[DocumentLink]) -> None:
    """Make the stored amendment links exactly ``links``, keeping the rows that stay."""
    wanted = {(link.source.pk, link.target.pk): link for link in links}
    stored = {
        (link.source_id, link.target_id): link
        for link in DocumentLink.objects.filter(workspace=workspace, kind=LinkKind.AMENDS)
    }
    DocumentLink.objects.filter(
        pk__in=[link.pk for key, link in stored.items() if key not in wanted]
    ).delete()
    changed = []
    for key, link in wanted.items():
        kept = stored.get(key)
        if kept is not None and kept.explanation != link.explanation:
            kept.explanation = link.explanation
            changed.append(kept)
    DocumentLink.objects.bulk_update(changed, ["explanation"])
    # ON CONFLICT DO NOTHING: a link written meanwhile by another run is the same link.
    DocumentLink.objects.bulk_create(
        [link for key, link in wanted.items() if key not in stored], ignore_conflicts=True
    )


def _groups_save(workspace: Workspace, groups: list[DuplicateGroupFound]) -> None:
    """Make the stored duplicate groups exactly ``groups`` (same kind and members = same
    group, kept with its id); a group stored twice by an earlier race is folded into one."""
    wanted = {(kind, ids): (reason, score) for kind, ids, reason, score in groups}
    members: dict[int, set[int]] = defaultdict(set)
    for group_id, document_id in DuplicateMember.objects.filter(workspace=workspace).values_list(
        "group_id", "document_id"
    ):
        members[group_id].add(document_id)
    kept: dict[tuple[str, frozenset[int]], DuplicateGroup] = {}
    stale = []
    for group in DuplicateGroup.objects.filter(workspace=workspace).order_by("pk"):
        key = (group.kind, frozenset(members[group.pk]))
        if key in wanted and key not in kept:
            kept[key] = group
        else:
            stale.append(group.pk)
    DuplicateGroup.objects.filter(pk__in=stale).delete()
    changed = []
    for key, group in kept.items():
        reason, score = wanted[key]
        if (group.reason, group.score) != (reason, score):
            group.reason, group.score = reason, score
            changed.append(group)
    DuplicateGroup.objects.bulk_update(changed, ["reason", "score"])
    for (kind, ids), (reason, score) in wanted.items():
        if (kind, ids) in kept:
            continue
        group = DuplicateGroup.objects.create(
            workspace=workspace, kind=kind, reason=reason, score=score
        )
        DuplicateMember.objects.bulk_create(
            (
                DuplicateMember(workspace=workspace, group=group, document_id=pk)
                for pk in sorted(ids)
            ),
            ignore_conflicts=True,
        )


# --- Entry point -------------------------------------------------------------------------


@transaction.atomic
def workspace_analyze(*, workspace_id: int) -> AnalysisSummary:
    """Rebuild amendment links, effective end dates and duplicate groups of a workspace.

    One run at a time per workspace (an advisory lock held until commit: under an upload
    burst several workers finish a batch at once); a run that waited reads what the
    previous one wrote, and only changed rows are written.
    """
    workspace_xact_lock(namespace=LockNamespace.WORKSPACE_ANALYSIS, workspace_id=workspace_id)
    workspace = Workspace.objects.get(pk=workspace_id)
    found = workspace_analysis(workspace_id=workspace_id)
    _links_save(workspace, found.links)
    Document.objects.bulk_update(
        found.end_dates_changed,
        ["effective_end_date", "effective_end_explanation"],
        batch_size=500,
    )
    _groups_save(workspace, found.duplicate_groups)
    workspace_analyzed(workspace_id=workspace_id)
    return AnalysisSummary(
        amendment_links=len(found.links), duplicate_groups=len(found.duplicate_groups)
    )
