"""Reads for documents, always through a workspace the caller already has access to."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Count, Prefetch, Q, QuerySet
from django.http import Http404
from django.utils.translation import gettext

from core.embeddings import embedding_model_name
from documents import provenance
from documents.chunking import page_of
from documents.models import (
    Chunk,
    Document,
    DocumentLink,
    DocumentParty,
    DocumentStatus,
    DuplicateGroup,
    DuplicateMember,
    Entity,
    IngestBatch,
)
from workspaces.models import Workspace


class DocumentNotFound(Http404):
    def __init__(self) -> None:
        super().__init__(gettext("No such document."))


def parties_prefetch() -> Prefetch[str]:
    """A document's parties with their entities, in the contract's order (one query)."""
    return Prefetch(
        "parties", queryset=DocumentParty.objects.select_related("entity").order_by("ordinal")
    )


def document_list(*, workspace: Workspace) -> QuerySet[Document]:
    return (
        Document.objects.filter(workspace=workspace)
        .defer("text", "minhash", "page_starts", "provenance", "identifiers")
        .prefetch_related(parties_prefetch())
        .annotate(chunk_count=Count("chunks"))
        .order_by("ref")
    )


def document_get(*, workspace: Workspace, ref: str) -> Document:
    """A document by contract id in ``workspace``; another workspace's gives the same 404."""
    document = document_list(workspace=workspace).filter(ref=ref).first()
    if document is None:
        raise DocumentNotFound()
    return document


def document_chunks(*, document: Document) -> QuerySet[Chunk]:
    return Chunk.objects.filter(document=document).defer("embedding").order_by("ordinal")


@dataclass(frozen=True)
class ChunkPage:
    """One page of a document's articles, in reading order."""

    chunks: list[Chunk]
    total: int  # articles in the whole selection, not only this page
    skipped: int  # articles before this page
    next_cursor: int | None  # ordinal to continue ``after``; None on the last page

    @property
    def start(self) -> int:
        return self.skipped + 1

    @property
    def end(self) -> int:
        return self.skipped + len(self.chunks)


def chunk_page(
    *, chunks: QuerySet[Chunk], after: int | None = None, size: int | None = None
) -> ChunkPage:
    """The articles of ``chunks`` past the ordinal ``after``, at most ``size`` of them
    (``LEXROOM_ARTICLES_PER_PAGE``): a document of thousands of chunks is never read whole.
    Keyed on the ordinal, not an offset: any page is one range of the (document, ordinal)
    index."""
    size = size or settings.LEXROOM_ARTICLES_PER_PAGE
    chunks = chunks.order_by("ordinal")
    rest = chunks if after is None else chunks.filter(ordinal__gt=after)
    page = list(rest[: size + 1])
    return ChunkPage(
        chunks=page[:size],
        total=chunks.count(),
        skipped=0 if after is None else chunks.filter(ordinal__lte=after).count(),
        next_cursor=page[size - 1].ordinal if len(page) > size else None,
    )


def chunk_page_cursor(
    *, chunks: QuerySet[Chunk], chunk_id: int, size: int | None = None
) -> tuple[bool, int | None]:
    """Where the page of ``chunks`` holding ``chunk_id`` starts: ``(found, after)``, ``after``
    being the cursor :func:`chunk_page` takes. The pages are the ones "next" links walk
    (``size`` articles each from the first), so a citation opens the page a reader would
    reach. A chunk not among ``chunks`` (another document's) gives ``(False, None)``."""
    size = size or settings.LEXROOM_ARTICLES_PER_PAGE
    chunks = chunks.order_by("ordinal")
    ordinal = chunks.filter(pk=chunk_id).values_list("ordinal", flat=True).first()
    if ordinal is None:
        return False, None
    before = chunks.filter(ordinal__lt=ordinal).count()
    if before < size:
        return True, None
    page_start = (before // size) * size
    return True, chunks.values_list("ordinal", flat=True)[page_start - 1]


def amendment_links(*, document_ids: Iterable[int]) -> dict[int, dict[str, list[DocumentLink]]]:
    """For each document: the links where it amends another ("amends") and where another
    amends it ("amended_by"), both ends loaded, ordered by the amending contract's id."""
    ids = list(document_ids)
    result: dict[int, dict[str, list[DocumentLink]]] = {
        i: {"amends": [], "amended_by": []} for i in ids
    }
    if not ids:
        return result
    links = DocumentLink.objects.filter(Q(source_id__in=ids) | Q(target_id__in=ids))
    for link in links.select_related("source", "target").order_by("source__ref", "pk"):
        if link.source_id in result:
            result[link.source_id]["amends"].append(link)
        if link.target_id in result:
            result[link.target_id]["amended_by"].append(link)
    return result


def document_links(*, document: Document) -> dict[str, list[DocumentLink]]:
    return amendment_links(document_ids=[document.pk])[document.pk]


# What a duplicate group shows of its contracts (the text can be megabytes: never loaded).
_MEMBER_FIELDS = ("ref", "filename", "title")


def duplicate_group_members(*, workspace: Workspace) -> list[tuple[DuplicateGroup, list[Document]]]:
    """Every duplicate group of ``workspace`` (oldest first) with its contracts, by id."""
    groups = DuplicateGroup.objects.filter(workspace=workspace).order_by("pk")
    members: dict[int, list[Document]] = {}
    rows = DuplicateMember.objects.filter(workspace=workspace).select_related("document")
    for member in rows.only("group", *(f"document__{f}" for f in _MEMBER_FIELDS)):
        members.setdefault(member.group_id, []).append(member.document)
    return [
        (group, sorted(members.get(group.pk, []), key=lambda document: document.ref))
        for group in groups
    ]


def duplicate_groups(*, workspace: Workspace) -> list[tuple[DuplicateGroup, list[str]]]:
    return [
        (group, [document.ref for document in documents])
        for group, documents in duplicate_group_members(workspace=workspace)
    ]


def document_duplicates(*, document: Document) -> list[tuple[DuplicateGroup, list[Document]]]:
    """The duplicate groups ``document`` belongs to, each with its other contracts."""
    group_ids = DuplicateMember.objects.filter(document=document).values("group_id")
    groups = {g.pk: g for g in DuplicateGroup.objects.filter(pk__in=group_ids).order_by("pk")}
    others: dict[int, list[Document]] = {pk: [] for pk in groups}
    rows = DuplicateMember.objects.filter(group_id__in=list(groups)).exclude(document=document)
    for member in rows.select_related("document").only(
        "group", *(f"document__{f}" for f in _MEMBER_FIELDS)
    ):
        others[member.group_id].append(member.document)
    return [
        (group, sorted(others[pk], key=lambda other: other.ref)) for pk, group in groups.items()
    ]


def entity_list(*, workspace: Workspace) -> QuerySet[Entity]:
    return (
        Entity.objects.filter(workspace=workspace, merged_into__isnull=True)
        .annotate(document_count=Count("parties__document", distinct=True))
        .order_by("name")
    )


# --- Ingestion progress --------------------------------------------------------------------

# A document is done with ingestion once it is indexed or has failed; anything else is waiting.
FINAL_STATUSES = (DocumentStatus.EMBEDDED, DocumentStatus.FAILED)


def needs_embedding(model_name: str) -> Q:
    """A chunk without a vector, or with one from another model."""
    return Q(embedding__isnull=True) | ~Q(embedding_model=model_name)


def chunks_pending_embedding(*, workspace_id: int) -> int:
    """Chunks of the workspace still waiting for a vector of the configured model."""
    return (
        Chunk.objects.filter(workspace_id=workspace_id)
        .filter(needs_embedding(embedding_model_name()))
        .count()
    )


@dataclass(frozen=True)
class BatchFailure:
    contract_id: str
    file: str
    error: str


@dataclass(frozen=True)
class BatchStatus:
    """Where an ingestion batch stands: what the REST endpoint, the CLI and the web UI show."""

    batch_id: int
    documents: int  # documents the batch stored (refused files are not documents)
    statuses: dict[str, int]  # documents per status value, in the statuses' order
    failures: list[BatchFailure]  # failed documents, by contract id
    refused: list[dict[str, str]]  # files refused before storage: {file, code, error}
    # The embedding queue is the workspace's, shared with other batches: the batch is only
    # finished once it is empty (the workspace analysis runs after it).
    chunks_awaiting_embedding: int

    @property
    def done(self) -> int:
        return sum(self.statuses.get(value, 0) for value in FINAL_STATUSES)

    @property
    def failed(self) -> int:
        return self.statuses.get(DocumentStatus.FAILED, 0)

    @property
    def pending(self) -> int:
        return self.documents - self.done

    @property
    def documents_final(self) -> bool:
        """Every document indexed or failed (the REST ``done`` flag)."""
        return self.done >= self.documents

    @property
    def finished(self) -> bool:
        """Every document final and nothing left to embed: what the CLI waits for."""
        return self.documents_final and self.chunks_awaiting_embedding == 0


def batch_status(*, batch: IngestBatch) -> BatchStatus:
    """The batch's progress, counted in three queries whatever its size.

    The caller has scoped the transaction to the batch's workspace and checked access to it.
    """
    documents = Document.objects.filter(workspace_id=batch.workspace_id, pk__in=batch.document_ids)
    counts = dict(
        documents.order_by()
        .values("status")
        .annotate(count=Count("id"))
        .values_list("status", "count")
    )
    failed = documents.filter(status=DocumentStatus.FAILED).order_by("ref")
    return BatchStatus(
        batch_id=batch.pk,
        documents=len(batch.document_ids),
        statuses={value: counts[value] for value in DocumentStatus.values if value in counts},
        failures=[
            BatchFailure(contract_id=ref, file=filename, error=reason)
            for ref, filename, reason in failed.values_list("ref", "filename", "status_reason")
        ],
        refused=list(batch.errors),
        chunks_awaiting_embedding=chunks_pending_embedding(workspace_id=batch.workspace_id),
    )


@dataclass(frozen=True)
class LocatedValue:
    """One metadata value with its provenance, placed in the contract: article and page."""

    field: str
    record: dict[str, Any]
    chunk_id: int | None
    article_ref: str | None
    page: int | None


@dataclass(frozen=True)
class DocumentProvenance:
    values: list[LocatedValue]
    identifiers: list[dict[str, Any]]  # as stored: kind, number, valid, city, quote, start


def chunks_holding(
    positions: Iterable[tuple[int, int]], *, fields: Iterable[str] = ()
) -> dict[tuple[int, int], Chunk]:
    """For each (document id, character offset), the chunk of that document holding it (of
    overlapping chunks, the one that starts first), with ``fields`` loaded, in one query;
    an offset no chunk holds is left out."""
    wanted = list(positions)
    if not wanted:
        return {}
    holding = Q(pk__in=[])
    for document_id, start in wanted:
        holding |= Q(document_id=document_id, char_start__lte=start, char_end__gt=start)
    chunks = list(
        Chunk.objects.filter(holding)
        .order_by("document_id", "char_start")
        .only("id", "document_id", "char_start", "char_end", *fields)
    )
    found: dict[tuple[int, int], Chunk] = {}
    for document_id, start in wanted:
        chunk = next(
            (
                c
                for c in chunks
                if c.document_id == document_id and c.char_start <= start < c.char_end
            ),
            None,
        )
        if chunk is not None:
            found[document_id, start] = chunk
    return found


def document_provenance(*, document: Document) -> DocumentProvenance:
    """Every metadata field's provenance (see documents.provenance), in the viewer's order,
    then one entry per party, quotes located in their article and page; and the identifiers
    read in the text (two queries)."""
    stored = (
        Document.objects.filter(pk=document.pk)
        .values_list("provenance", "page_starts", "identifiers")
        .first()
    )
    records, page_starts, identifiers = stored if stored else ({}, [], [])
    entries = [
        (name, records.get(name) or provenance.record_from_columns(document, name))
        for name in provenance.FIELDS
    ]
    entries += [("party", record) for record in records.get("parties", [])]
    starts = {record["start"] for _, record in entries if record.get("start", -1) >= 0}
    chunks = chunks_holding([(document.pk, start) for start in starts], fields=("article_ref",))
    located = []
    for name, record in entries:
        start = record.get("start", -1)
        chunk = chunks.get((document.pk, start))
        page = page_of(page_starts, start) if start >= 0 else None
        located.append(
            LocatedValue(
                field=name,
                record=record,
                chunk_id=chunk.pk if chunk else None,
                article_ref=(chunk.article_ref or None) if chunk else None,
                page=page,
            )
        )
    return DocumentProvenance(values=located, identifiers=identifiers)
