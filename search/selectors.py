"""The search tools' reads: search_data_room, describe_data_room, get_contract, find_duplicates.

Every function takes a workspace the caller already has access to and runs inside its
tenant scope; none knows whether MCP, REST, the CLI or the agent called it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from django.db.models import Count, Max, Min, Prefetch, Q, QuerySet
from django.db.models.functions import Length
from django.utils.translation import gettext

from documents.models import (
    Chunk,
    Document,
    DocumentParty,
    DocumentStatus,
    DuplicateGroup,
    DuplicateMember,
    Entity,
)
from documents.normalize import iso_date
from documents.selectors import chunk_page
from search.filters import (
    DateRange,
    SearchFilters,
    ToolInputError,
    Vocabulary,
    parse_filters,
    unknown_entities_message,
    validate_against,
)
from search.ranking import ChunkHit, rank_chunks
from search.records import contract_record, excerpt, links_by_document
from workspaces.models import Workspace

SEARCHABLE = (DocumentStatus.CHUNKED, DocumentStatus.EMBEDDED)
MAX_LIMIT = 100
MAX_OFFSET = 100_000
MAX_QUERY_CHARS = 1000
ARTICLES_PER_CONTRACT = 3


def _documents(workspace: Workspace) -> QuerySet[Document]:
    parties = Prefetch(
        "parties", queryset=DocumentParty.objects.select_related("entity").order_by("ordinal")
    )
    return (
        Document.objects.filter(workspace=workspace, status__in=SEARCHABLE)
        .defer("text", "minhash", "page_starts", "raw_metadata")
        .prefetch_related(parties)
    )


def vocabulary(*, workspace: Workspace, filters: SearchFilters) -> Vocabulary:
    """What validating ``filters`` needs, and no more: types and laws are few, but entities
    and contract ids can be thousands, so only the requested ones are looked up."""
    documents = Document.objects.filter(workspace=workspace, status__in=SEARCHABLE).order_by()
    entities = Entity.objects.filter(workspace=workspace, merged_into__isnull=True)
    requested_entities = dict(entities.filter(pk__in=filters.entity_ids).values_list("id", "name"))
    if len(requested_entities) < len(set(filters.entity_ids)):
        # An unknown id: the error lists every entity so the caller can pick the right one.
        requested_entities = dict(entities.values_list("id", "name"))
    # Types and laws only when filtered on (each is a scan of the workspace's contracts).
    return Vocabulary(
        entity_ids=requested_entities,
        contract_types=sorted(
            documents.exclude(contract_type="").values_list("contract_type", flat=True).distinct()
        )
        if filters.contract_types
        else [],
        laws=sorted(
            documents.exclude(governing_law="").values_list("governing_law", flat=True).distinct()
        )
        if filters.governing_law
        else [],
        refs=set(documents.filter(ref__in=filters.document_ids).values_list("ref", flat=True))
        if filters.document_ids
        else set(),
    )


# --- describe_data_room -------------------------------------------------------------------


def describe_data_room(*, workspace: Workspace) -> dict[str, Any]:
    """What an agent needs to fill filters: entities, types, laws, date ranges, counts."""
    all_documents = Document.objects.filter(workspace=workspace)
    documents = all_documents.filter(status__in=SEARCHABLE)
    entities = (
        Entity.objects.filter(workspace=workspace, merged_into__isnull=True)
        .annotate(contracts=Count("parties__document", distinct=True))
        .order_by("name")
    )
    ranges = documents.aggregate(
        signature_min=Min("signature_date"),
        signature_max=Max("signature_date"),
        end_min=Min("effective_end_date"),
        end_max=Max("effective_end_date"),
    )
    statuses = Counter(all_documents.values_list("status", flat=True))
    return {
        "workspace": workspace.slug,
        "title": workspace.title,
        "contracts": documents.count(),
        "documents_by_status": dict(sorted(statuses.items())),
        "entities": [
            {
                "entity_id": entity.pk,
                "name": entity.name,
                "aliases": entity.aliases,
                "siren": entity.siren or None,
                "siren_valid": entity.siren_valid,
                "contracts": entity.contracts,
            }
            for entity in entities
        ],
        "contract_types": _counts(documents, "contract_type"),
        "governing_laws": _counts(documents, "governing_law"),
        "unknown": {
            "contract_type": documents.filter(contract_type="").count(),
            "governing_law": documents.filter(governing_law="").count(),
            "signature_date": documents.filter(signature_date__isnull=True).count(),
            "end_date": documents.filter(effective_end_date__isnull=True).count(),
        },
        "signature_date": {
            "min": iso_date(ranges["signature_min"]),
            "max": iso_date(ranges["signature_max"]),
        },
        "end_date": {"min": iso_date(ranges["end_min"]), "max": iso_date(ranges["end_max"])},
        "amendments": documents.filter(is_amendment=True).count(),
        "duplicate_groups": DuplicateGroup.objects.filter(workspace=workspace).count(),
    }


def _counts(documents: QuerySet[Document], field: str) -> list[dict[str, Any]]:
    rows = documents.exclude(**{field: ""}).values(field).annotate(n=Count("id")).order_by(field)
    return [{"value": row[field], "contracts": row["n"]} for row in rows]


# --- search_data_room ---------------------------------------------------------------------


def _range_q(field: str, bounds: DateRange) -> Q:
    q = Q()
    if bounds.after:
        q &= Q(**{f"{field}__gte": bounds.after})
    if bounds.before:
        q &= Q(**{f"{field}__lte": bounds.before})
    return q


def _field_conditions(filters: SearchFilters) -> dict[str, tuple[Q, Q]]:
    """For each filtered field that can be unknown: (condition, field is unknown)."""
    conditions: dict[str, tuple[Q, Q]] = {}
    if filters.governing_law and (filters.governing_law.in_ or filters.governing_law.not_in):
        law = Q()
        if filters.governing_law.in_:
            law &= Q(governing_law__in=filters.governing_law.in_)
        if filters.governing_law.not_in:
            law &= ~Q(governing_law__in=filters.governing_law.not_in)
        # An unknown law is neither "in" nor "not in" anything: it is reported, not matched.
        conditions["governing_law"] = (law & ~Q(governing_law=""), Q(governing_law=""))
    if filters.signature_date and (filters.signature_date.after or filters.signature_date.before):
        conditions["signature_date"] = (
            _range_q("signature_date", filters.signature_date),
            Q(signature_date__isnull=True),
        )
    if filters.end_date and (filters.end_date.after or filters.end_date.before):
        conditions["end_date"] = (
            _range_q("effective_end_date", filters.end_date),
            Q(effective_end_date__isnull=True),
        )
    return conditions


def _base(workspace: Workspace, filters: SearchFilters) -> QuerySet[Document]:
    documents = _documents(workspace)
    for entity_id in filters.entity_ids:  # every entity must be a party
        documents = documents.filter(parties__entity_id=entity_id)
    if filters.contract_types:
        documents = documents.filter(contract_type__in=filters.contract_types)
    if filters.document_ids:
        documents = documents.filter(ref__in=filters.document_ids)
    return documents.distinct() if filters.entity_ids else documents


def _matched(document: Document, filters: SearchFilters, names: dict[int, str]) -> list[str]:
    """Why the contract passes the filters, one line per filter, in the caller's language."""
    matched = []
    for entity_id in filters.entity_ids:
        matched.append(gettext("party: %(name)s") % {"name": names.get(entity_id, entity_id)})
    if filters.contract_types:
        matched.append(
            gettext("type %(type)s (∈ %(allowed)s)")
            % {"type": document.contract_type, "allowed": ", ".join(filters.contract_types)}
        )
    if filters.governing_law and (filters.governing_law.in_ or filters.governing_law.not_in):
        rule = []
        if filters.governing_law.in_:
            rule.append(f"∈ {', '.join(filters.governing_law.in_)}")
        if filters.governing_law.not_in:
            rule.append(f"∉ {', '.join(filters.governing_law.not_in)}")
        matched.append(
            gettext("law %(law)s (%(rule)s)")
            % {"law": document.governing_law, "rule": "; ".join(rule)}
        )
    for message, value, bounds in (
        (gettext("signature %(date)s (%(rule)s)"), document.signature_date, filters.signature_date),
        (gettext("end %(date)s (%(rule)s)"), document.effective_end_date, filters.end_date),
    ):
        if bounds and value and (bounds.after or bounds.before):
            after, before = iso_date(bounds.after), iso_date(bounds.before)
            if after and before:
                between = gettext(">= %(after)s and <= %(before)s")
                bound = between % {"after": after, "before": before}
            else:
                bound = f">= {after}" if after else f"<= {before}"
            matched.append(message % {"date": value.isoformat(), "rule": bound})
    if filters.document_ids:
        matched.append(gettext("contract %(id)s requested") % {"id": document.ref})
    return matched


def _validate_paging(query: str | None, limit: Any, offset: Any) -> tuple[str | None, int, int]:
    if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_LIMIT:
        message = gettext("limit must be an integer from 1 to %(max)d.")
        raise ToolInputError(message % {"max": MAX_LIMIT}, {"field": "limit"})
    if not isinstance(offset, int) or isinstance(offset, bool) or not 0 <= offset <= MAX_OFFSET:
        message = gettext("offset must be an integer from 0 to %(max)d.")
        raise ToolInputError(message % {"max": MAX_OFFSET}, {"field": "offset"})
    if query is not None:
        if not isinstance(query, str):
            raise ToolInputError(gettext("query must be a string."), {"field": "query"})
        query = "".join(ch for ch in query if ch.isprintable() or ch in "\n\t").strip()
        if len(query) > MAX_QUERY_CHARS:
            message = gettext("query is too long (%(count)d characters, at most %(max)d).")
            raise ToolInputError(
                message % {"count": len(query), "max": MAX_QUERY_CHARS}, {"field": "query"}
            )
        query = query or None
    return query, limit, offset


def search_data_room(
    *,
    workspace: Workspace,
    query: str | None = None,
    filters: dict[str, Any] | None = None,
    limit: int = 20,
    offset: int = 0,
) -> dict[str, Any]:
    """Every contract passing the filters (exhaustive, paged), or ranked by ``query``.

    Contracts whose filtered field is unknown are listed in ``excluded_unknown``, and those
    an amendment moved out of an end-date window in ``excluded_by_amendment``: never dropped
    silently.
    """
    query, limit, offset = _validate_paging(query, limit, offset)
    parsed = parse_filters(filters)
    known = vocabulary(workspace=workspace, filters=parsed)
    validate_against(parsed, known)

    base = _base(workspace, parsed)
    conditions = _field_conditions(parsed)
    passing_q, pass_or_unknown_q, any_unknown_q = Q(), Q(), Q()
    for condition, unknown in conditions.values():
        passing_q &= condition
        pass_or_unknown_q &= condition | unknown
        any_unknown_q |= unknown
    passing = base.filter(passing_q)

    excluded_unknown: list[dict[str, Any]] = []
    if conditions:
        # Thousands of contracts may lack a date: plain rows, no model instances or parties.
        unknown_rows = (
            base.filter(pass_or_unknown_q)
            .filter(any_unknown_q)
            .prefetch_related(None)
            .order_by("ref")
            .values("ref", "title", "governing_law", "signature_date", "effective_end_date")
        )
        for row in unknown_rows:
            fields = [name for name in conditions if _is_unknown(row, name)]
            excluded_unknown.append(
                {"contract_id": row["ref"], "title": row["title"], "unknown_fields": fields}
            )
    excluded_by_amendment: dict[str, str] = {}
    if "end_date" in conditions and parsed.end_date:
        others = Q()
        for name, (condition, _) in conditions.items():
            if name != "end_date":
                others &= condition
        moved = (
            base.filter(others)
            .filter(_range_q("end_date", parsed.end_date))
            .exclude(_range_q("effective_end_date", parsed.end_date))
            .exclude(effective_end_date__isnull=True)
        )
        moved_rows = moved.prefetch_related(None).order_by("ref")
        for ref, explanation, effective_end in moved_rows.values_list(
            "ref", "effective_end_explanation", "effective_end_date"
        ):
            excluded_by_amendment[ref] = explanation or (
                gettext("effective end %(date)s after an amendment")
                % {"date": iso_date(effective_end)}
            )

    total_candidates = _documents(workspace).count()
    page: list[Document]
    if query is None:
        ordered = passing.annotate(ref_length=Length("ref")).order_by("ref_length", "ref", "id")
        total = ordered.count()
        page = list(ordered[offset : offset + limit])
        hits_by_document: dict[int, list[ChunkHit]] = {}
        scores: dict[int, float] = {}
    else:
        candidate_ids = (
            list(passing.values_list("id", flat=True))
            if (conditions or parsed.entity_ids or parsed.contract_types or parsed.document_ids)
            else None
        )
        hits = (
            []
            if candidate_ids == []
            else rank_chunks(workspace_id=workspace.pk, query=query, document_ids=candidate_ids)
        )
        hits_by_document = {}
        for hit in hits:
            hits_by_document.setdefault(hit.document_id, []).append(hit)
        scores = {doc_id: _hit_score(doc_hits[0]) for doc_id, doc_hits in hits_by_document.items()}
        ranked_ids = sorted(scores, key=lambda doc_id: (-scores[doc_id], doc_id))
        total = len(ranked_ids)
        page_ids = ranked_ids[offset : offset + limit]
        by_id = {d.pk: d for d in passing.filter(pk__in=page_ids)}
        page = [by_id[doc_id] for doc_id in page_ids if doc_id in by_id]

    links = links_by_document(d.pk for d in page)
    chunks = _chunks_for(hits_by_document, page)
    results = []
    for document in page:
        record = contract_record(document, links[document.pk])
        record["matched_filters"] = _matched(document, parsed, known.entity_ids)
        record["relevant_articles"] = [
            {
                "chunk_id": hit.chunk_id,
                "heading": chunks[hit.chunk_id].heading or None,
                "page": chunks[hit.chunk_id].page_start,
                "excerpt": excerpt(chunks[hit.chunk_id].text, query),
                "score": round(_hit_score(hit), 6),
            }
            for hit in hits_by_document.get(document.pk, [])[:ARTICLES_PER_CONTRACT]
            if hit.chunk_id in chunks
        ]
        record["score"] = round(scores[document.pk], 6) if document.pk in scores else None
        results.append(record)
    next_offset = offset + limit if offset + limit < total else None
    return {
        "query": query,
        "total_candidates": total_candidates,
        "total_results": total,
        "offset": offset,
        "next_offset": next_offset,
        "excluded_unknown": excluded_unknown,
        "excluded_by_amendment": excluded_by_amendment,
        "results": results,
    }


def _hit_score(hit: ChunkHit) -> float:
    return hit.rerank_score if hit.rerank_score is not None else hit.score


def _is_unknown(row: Mapping[str, Any], field: str) -> bool:
    if field == "governing_law":
        return not row["governing_law"]
    if field == "signature_date":
        return row["signature_date"] is None
    return row["effective_end_date"] is None


def _chunks_for(hits: dict[int, list[ChunkHit]], page: list[Document]) -> dict[int, Chunk]:
    wanted = [hit.chunk_id for d in page for hit in hits.get(d.pk, [])[:ARTICLES_PER_CONTRACT]]
    if not wanted:
        return {}
    return {
        chunk.pk: chunk
        for chunk in Chunk.objects.filter(pk__in=wanted).only(
            "id", "heading", "page_start", "text", "document_id"
        )
    }


# --- get_contract, find_duplicates --------------------------------------------------------


def get_contract(
    *,
    workspace: Workspace,
    contract_id: str,
    chunk_ids: list[int] | None = None,
    cursor: int | None = None,
) -> dict[str, Any]:
    """A contract's metadata, links, warnings, and a page of its articles (all of them, or
    those asked for): ``articles_total`` counts them, ``next_cursor`` continues the reading."""
    document = (
        _documents(workspace).filter(ref=contract_id).first()
        or Document.objects.filter(workspace=workspace, ref=contract_id)
        .prefetch_related("parties__entity")
        .first()
    )
    if document is None:
        message = gettext("Unknown contract_id %(id)r; use search_data_room or describe_data_room.")
        raise ToolInputError(message % {"id": contract_id}, {"field": "contract_id"})
    chunks = Chunk.objects.filter(document=document).only(
        "id", "heading", "article_ref", "page_start", "page_end", "text", "ordinal"
    )
    if chunk_ids:
        asked = chunks.filter(pk__in=chunk_ids)
        found = set(asked.values_list("id", flat=True))
        unknown = [i for i in chunk_ids if i not in found]
        if unknown:
            allowed = chunks.order_by("ordinal").values_list("id", flat=True)[:500]
            message = gettext("chunk_ids %(ids)s are not articles of %(id)s.")
            raise ToolInputError(
                message % {"ids": unknown, "id": contract_id},
                {"field": "chunk_ids", "allowed": sorted(allowed)},
            )
        chunks = asked
    record = contract_record(document, links_by_document([document.pk])[document.pk])
    explanations = {
        "amends": [
            {"contract_id": link.target.ref, "explanation": link.explanation}
            for link in document.links_out.select_related("target")
        ],
        "amended_by": [
            {"contract_id": link.source.ref, "explanation": link.explanation}
            for link in document.links_in.select_related("source")
        ],
    }
    record["links"] = explanations
    record["status_reason"] = document.status_reason or None
    page = chunk_page(chunks=chunks, after=cursor)
    record["articles"] = [
        {
            "chunk_id": chunk.pk,
            "heading": chunk.heading or None,
            "article_ref": chunk.article_ref or None,
            "page_start": chunk.page_start,
            "page_end": chunk.page_end,
            "text": chunk.text,
        }
        for chunk in page.chunks
    ]
    record["articles_total"] = page.total
    record["next_cursor"] = page.next_cursor
    return record


def find_duplicates(*, workspace: Workspace, entity_ids: list[int] | None = None) -> dict[str, Any]:
    """Duplicate groups (exact, near, translation) with their reasons; nothing is deleted."""
    if entity_ids:
        known = set(
            Entity.objects.filter(workspace=workspace, pk__in=entity_ids).values_list(
                "id", flat=True
            )
        )
        unknown = [i for i in entity_ids if i not in known]
        if unknown:
            raise ToolInputError(unknown_entities_message(unknown), {"field": "entity_ids"})
    members: dict[int, list[Document]] = {}
    for member in DuplicateMember.objects.filter(workspace=workspace).select_related("document"):
        members.setdefault(member.group_id, []).append(member.document)
    party_sets: dict[int, set[int]] = {}
    for document_id, entity_id in DocumentParty.objects.filter(workspace=workspace).values_list(
        "document_id", "entity_id"
    ):
        party_sets.setdefault(document_id, set()).add(entity_id)
    groups = []
    for group in DuplicateGroup.objects.filter(workspace=workspace).order_by("pk"):
        documents = sorted(members.get(group.pk, []), key=lambda d: d.ref)
        if entity_ids and not any(
            set(entity_ids) <= party_sets.get(d.pk, set()) for d in documents
        ):
            continue
        groups.append(
            {
                "kind": group.kind,
                "reason": group.reason,
                "score": round(group.score, 4),
                "contracts": [
                    {"contract_id": d.ref, "filename": d.filename, "title": d.title}
                    for d in documents
                ],
            }
        )
    return {"groups": groups, "total_groups": len(groups)}
