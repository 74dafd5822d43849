"""get_contract and find_duplicates: one contract read in full, and the groups of copies."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils.translation import gettext

from documents import provenance
from documents.models import Chunk, Document, DocumentParty, Entity
from documents.selectors import (
    LocatedValue,
    amendment_links,
    chunk_page,
    document_provenance,
    duplicate_group_members,
)
from search.errors import InvalidSearchArguments
from search.filters import unknown_entities_message
from search.records import contract_fields
from search.results import (
    Article,
    ContractLinks,
    ContractView,
    DuplicateContract,
    DuplicateGroups,
    DuplicateGroupView,
    FieldProvenance,
    Identifier,
    LinkExplanation,
)
from search.selectors._common import searchable_documents
from workspaces.models import Workspace


def get_contract(
    *,
    workspace: Workspace,
    contract_id: str,
    chunk_ids: list[int] | None = None,
    cursor: int | None = None,
) -> ContractView:
    """A contract's metadata, links, warnings, and a page of its articles (all of them, or
    those asked for): ``articles_total`` counts them, ``next_cursor`` continues the reading."""
    document = (
        searchable_documents(workspace).filter(ref=contract_id).first()
        or Document.objects.filter(workspace=workspace, ref=contract_id)
        .prefetch_related("parties__entity")
        .first()
    )
    if document is None:
        message = gettext("Unknown contract_id %(id)r; use search_data_room or describe_data_room.")
        raise InvalidSearchArguments(message % {"id": contract_id}, {"field": "contract_id"})
    chunks = _articles(document, chunk_ids)
    links = amendment_links(document_ids=[document.pk])[document.pk]
    page = chunk_page(chunks=chunks, after=cursor)
    read = document_provenance(document=document)
    return ContractView(
        **contract_fields(document, links),
        provenance=[_field_provenance(value) for value in read.values],
        identifiers=[
            Identifier(
                kind=str(item.get("kind", "")),
                number=str(item.get("number", "")),
                valid=bool(item.get("valid")),
                city=item.get("city") or None,
                quote=str(item.get("quote", "")),
            )
            for item in read.identifiers
        ],
        links=ContractLinks(
            amends=[
                LinkExplanation(contract_id=link.target.ref, explanation=link.explanation)
                for link in links["amends"]
            ],
            amended_by=[
                LinkExplanation(contract_id=link.source.ref, explanation=link.explanation)
                for link in links["amended_by"]
            ],
        ),
        status_reason=document.status_reason or None,
        articles=[_article(chunk) for chunk in page.chunks],
        articles_total=page.total,
        next_cursor=page.next_cursor,
    )


def _article(chunk: Chunk) -> Article:
    return Article(
        chunk_id=chunk.pk,
        heading=chunk.heading or None,
        article_ref=chunk.article_ref or None,
        page_start=chunk.page_start,
        page_end=chunk.page_end,
        text=chunk.text,
        ocr_confidence=chunk.ocr_confidence,
    )


def _field_provenance(located: LocatedValue) -> FieldProvenance:
    record = located.record
    reason = record.get("reason")
    confidence = record.get("confidence")
    return FieldProvenance(
        field=located.field,
        value=record.get("value"),
        source=record.get("source") or None,
        quote=record.get("quote") or None,
        chunk_id=located.chunk_id,
        article_ref=located.article_ref,
        page=located.page,
        confidence=confidence,
        confidence_label=provenance.confidence_label(record),
        reason=provenance.reason_label(reason) if reason else None,
        alternatives=[str(other.get("value")) for other in record.get("alternatives", [])],
    )


def _articles(document: Document, chunk_ids: list[int] | None) -> QuerySet[Chunk]:
    """The contract's articles, or those of ``chunk_ids`` (all of which must be its own)."""
    chunks = Chunk.objects.filter(document=document).only(
        "id",
        "heading",
        "article_ref",
        "page_start",
        "page_end",
        "text",
        "ordinal",
        "ocr_confidence",
    )
    if not chunk_ids:
        return chunks
    asked = chunks.filter(pk__in=chunk_ids)
    found = set(asked.values_list("id", flat=True))
    unknown = [i for i in chunk_ids if i not in found]
    if unknown:
        allowed = chunks.order_by("ordinal").values_list("id", flat=True)[:500]
        message = gettext("chunk_ids %(ids)s are not articles of %(id)s.")
        raise InvalidSearchArguments(
            message % {"ids": unknown, "id": document.ref},
            {"field": "chunk_ids", "allowed": sorted(allowed)},
        )
    return asked


def find_duplicates(
    *, workspace: Workspace, entity_ids: list[int] | None = None
) -> DuplicateGroups:
    """Duplicate groups (exact, near, translation) with their reasons; nothing is deleted.
    With ``entity_ids``, only groups with a contract to which all of them are parties."""
    if entity_ids:
        known = set(
            Entity.objects.filter(workspace=workspace, pk__in=entity_ids).values_list(
                "id", flat=True
            )
        )
        unknown = [i for i in entity_ids if i not in known]
        if unknown:
            raise InvalidSearchArguments(unknown_entities_message(unknown), {"field": "entity_ids"})
    party_sets: dict[int, set[int]] = {}
    for document_id, entity_id in DocumentParty.objects.filter(workspace=workspace).values_list(
        "document_id", "entity_id"
    ):
        party_sets.setdefault(document_id, set()).add(entity_id)
    groups = [
        DuplicateGroupView(
            kind=group.kind,
            reason=group.reason,
            score=round(group.score, 4),
            contracts=[
                DuplicateContract(contract_id=d.ref, filename=d.filename, title=d.display_title)
                for d in documents
            ],
        )
        for group, documents in duplicate_group_members(workspace=workspace)
        if not entity_ids or any(set(entity_ids) <= party_sets.get(d.pk, set()) for d in documents)
    ]
    return DuplicateGroups(groups=groups, total_groups=len(groups))
