"""Reads for the web pages that give an overview: the home page (every workspace of a user)
and a workspace's dashboard (its documents table, filtered, sorted and paged in SQL), and an
ingestion batch with what became of each of its files.

Selectors like those of :mod:`documents.selectors`: the caller has already checked access to
the workspace and runs inside its tenant scope.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.paginator import Page, Paginator
from django.db.models import Count, F, Max, Q, QuerySet
from django.db.models.functions import Length

from documents.models import (
    Document,
    DocumentLink,
    DocumentStatus,
    DuplicateGroup,
    DuplicateMember,
    IngestBatch,
)
from documents.selectors import FINAL_STATUSES, amendment_links, parties_prefetch
from workspaces.models import User, Workspace
from workspaces.selectors import workspace_list_with_roles

PAGE_SIZE = 50
# Sort keys a URL may name, to the columns they order by (anything else is refused).
SORT_KEYS: dict[str, tuple[str, ...]] = {
    "ref": ("ref_length", "ref"),  # c2 before c10
    "title": ("title", "filename"),
    "contract_type": ("contract_type",),
    "signature_date": ("signature_date",),
    "effective_end_date": ("effective_end_date",),
    "governing_law": ("governing_law",),
    "status": ("status",),
}
# Never loaded for a table: the text can be megabytes.
_HEAVY_FIELDS = (
    "text",
    "minhash",
    "page_starts",
    "raw_metadata",
    "amendment_hints",
    "amounts",
    "provenance",
    "identifiers",
)


# --- Home ------------------------------------------------------------------------------------


def workspace_overview_for_user(*, user: User) -> QuerySet[Workspace]:
    """The user's workspaces, each annotated in one query with ``member_role``,
    ``document_count``, ``in_progress`` and ``failed`` (documents not yet final / failed) and
    ``last_upload`` (when its newest document was stored: the page's "last activity")."""
    return workspace_list_with_roles(user=user).annotate(
        document_count=Count("documents"),
        in_progress=Count("documents", filter=~Q(documents__status__in=FINAL_STATUSES)),
        failed=Count("documents", filter=Q(documents__status=DocumentStatus.FAILED)),
        last_upload=Max("documents__created_at"),
    )


# --- Dashboard -------------------------------------------------------------------------------


@dataclass(frozen=True)
class DocumentFilters:
    """What the dashboard's URL asks for, already validated (see documents.forms)."""

    text: str = ""
    status: str = ""
    contract_type: str = ""
    governing_law: str = ""
    with_warnings: bool = False
    sort: str = "ref"
    descending: bool = False


@dataclass
class DuplicateBadge:
    group: DuplicateGroup
    others: list[Document]


@dataclass
class DocumentRow:
    document: Document
    amends: list[DocumentLink] = field(default_factory=list)
    amended_by: list[DocumentLink] = field(default_factory=list)
    duplicates: list[DuplicateBadge] = field(default_factory=list)


@dataclass(frozen=True)
class DocumentTable:
    page: Page[Document]
    rows: list[DocumentRow]
    processing: int  # documents of the workspace not yet indexed or failed


def _filtered(*, workspace: Workspace, filters: DocumentFilters) -> QuerySet[Document]:
    documents = Document.objects.filter(workspace=workspace)
    if filters.text:
        documents = documents.filter(
            Q(title__icontains=filters.text)
            | Q(ref__icontains=filters.text)
            | Q(filename__icontains=filters.text)
        )
    if filters.status:
        documents = documents.filter(status=filters.status)
    if filters.contract_type:
        documents = documents.filter(contract_type=filters.contract_type)
    if filters.governing_law:
        documents = documents.filter(governing_law=filters.governing_law)
    if filters.with_warnings:
        documents = documents.exclude(warnings=[])
    return documents


def _ordered(documents: QuerySet[Document], filters: DocumentFilters) -> QuerySet[Document]:
    columns = SORT_KEYS.get(filters.sort, SORT_KEYS["ref"])
    order = [
        F(column).desc(nulls_last=True) if filters.descending else F(column).asc(nulls_last=True)
        for column in columns
    ]
    # The id breaks ties, so that a page never repeats or skips a row.
    return documents.annotate(ref_length=Length("ref")).order_by(*order, "pk")


def _duplicates_of(ids: list[int]) -> dict[int, list[DuplicateBadge]]:
    """For each of ``ids``: its duplicate groups with the group's other contracts (one query)."""
    groups_of_page = DuplicateMember.objects.filter(document_id__in=ids).values("group_id")
    members = (
        DuplicateMember.objects.filter(group_id__in=groups_of_page)
        .select_related("group", "document")
        .only("group", "document__ref", "document__title", "document__filename")
        .order_by("group_id", "document__ref")
    )
    by_group: dict[int, list[DuplicateMember]] = {}
    for member in members:
        by_group.setdefault(member.group_id, []).append(member)
    badges: dict[int, list[DuplicateBadge]] = {}
    for group_members in by_group.values():
        for member in group_members:
            if member.document_id in ids:
                others = [m.document for m in group_members if m is not member]
                badges.setdefault(member.document_id, []).append(
                    DuplicateBadge(group=member.group, others=others)
                )
    return badges


def document_table(
    *, workspace: Workspace, filters: DocumentFilters, page_number: int, size: int = PAGE_SIZE
) -> DocumentTable:
    """One page of the workspace's documents, with their parties, amendment links and
    duplicates: a fixed number of queries whatever the page size (no N+1).

    ``page_number`` past the end gives the last page; the caller tells the person.
    """
    documents = _ordered(_filtered(workspace=workspace, filters=filters), filters)
    documents = documents.defer(*_HEAVY_FIELDS).prefetch_related(parties_prefetch())
    page = Paginator(documents, size).get_page(page_number)
    ids = [document.pk for document in page.object_list]
    links = amendment_links(document_ids=ids) if ids else {}
    duplicates = _duplicates_of(ids) if ids else {}
    rows = [
        DocumentRow(
            document=document,
            amends=links[document.pk]["amends"],
            amended_by=links[document.pk]["amended_by"],
            duplicates=duplicates.get(document.pk, []),
        )
        for document in page.object_list
    ]
    processing = (
        Document.objects.filter(workspace=workspace).exclude(status__in=FINAL_STATUSES).count()
    )
    return DocumentTable(page=page, rows=rows, processing=processing)


def filter_choices(*, workspace: Workspace) -> dict[str, list[str]]:
    """The contract types and governing laws present in the workspace (the filter's values)."""
    documents = Document.objects.filter(workspace=workspace).order_by()

    def distinct(column: str) -> list[str]:
        values = documents.exclude(**{column: ""}).values_list(column, flat=True).distinct()
        return sorted(values)

    return {"contract_type": distinct("contract_type"), "governing_law": distinct("governing_law")}


# --- Ingestion batches -----------------------------------------------------------------------


def batch_get(*, workspace: Workspace, batch_id: int) -> IngestBatch | None:
    """The batch if it belongs to ``workspace`` (another workspace's: None, as a missing one)."""
    return IngestBatch.objects.filter(workspace=workspace, pk=batch_id).first()


@dataclass(frozen=True)
class BatchFile:
    """One uploaded file (or archive member, or data-room entry) and what became of it."""

    name: str
    document: Document | None = None
    created: bool = False
    error: str = ""


def batch_files(*, batch: IngestBatch) -> list[BatchFile]:
    """The batch's stored files with their documents (one query), then its refused files."""
    entries = batch.files or [
        # Batches from before per-file results were kept: their documents, by id.
        {"file": "", "document_id": document_id, "created": True}
        for document_id in batch.document_ids
    ]
    ids = [entry["document_id"] for entry in entries]
    documents = Document.objects.filter(workspace_id=batch.workspace_id, pk__in=ids)
    by_id = {d.pk: d for d in documents.only("ref", "title", "filename", "status", "status_reason")}
    stored = [
        BatchFile(
            name=entry["file"] or getattr(by_id.get(entry["document_id"]), "filename", ""),
            document=by_id.get(entry["document_id"]),
            created=entry["created"],
        )
        for entry in entries
    ]
    refused = [BatchFile(name=error["file"], error=error["error"]) for error in batch.errors]
    return stored + refused
