"""search_data_room: every contract passing the filters, or ranked by a query."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from django.db.models.functions import Length
from django.utils.translation import gettext

from documents import clause_types
from documents.models import Chunk, Document
from documents.selectors import amendment_links
from search.conditions import FIELDS
from search.errors import InvalidSearchArguments
from search.filters import SearchFilters, validate_against
from search.paging import Page, clean_query
from search.ranking import ChunkHit, has_content_word, rank_chunks
from search.records import contract_fields, excerpt
from search.replica import ReplicaFailed, replica_reads
from search.results import ClauseTypeTag, RelevantArticle, SearchHit, SearchResults
from search.selectors._common import searchable_documents
from search.selectors._cut import relevance_cut
from search.selectors._explain import matched_filters
from search.selectors._filtering import Selection, select, vocabulary
from search.selectors._interpret import check_not_interpreted, interpret
from search.selectors._justify import filtered_fields, justifying_chunks
from workspaces.models import Workspace

ARTICLES_PER_CONTRACT = 3


@dataclass
class _Ranked:
    """One page of contracts, in order, and what ranked them (nothing without a query)."""

    documents: list[Document]
    total: int
    hits: dict[int, list[ChunkHit]] = field(default_factory=dict)
    scores: dict[int, float] = field(default_factory=dict)
    weak_left_out: int = 0  # contracts matched only weakly, not listed (_cut)


def search_data_room(
    *,
    workspace: Workspace,
    query: str | None = None,
    filters: SearchFilters | None = None,
    page: Page | None = None,
    interpret_query: bool = True,
    not_interpreted: Collection[str] = (),
    include_weak: bool = False,
) -> SearchResults:
    """Every contract passing the filters (exhaustive, paged), or ranked by ``query``.

    Conditions the query's words state (laws, dates, types, parties: :mod:`search.selectors.
    _interpret`) become filters unless ``interpret_query`` is false or their field is in
    ``not_interpreted``; explicit ``filters`` win. What is left of the query is ranked.

    Contracts whose filtered field is unknown are listed in ``excluded_unknown``, and those
    an amendment moved out of an end-date window in ``excluded_by_amendment``: never dropped
    silently. Raises :class:`~search.errors.InvalidSearchArguments` naming the allowed values.
    Reads a hot-standby replica when one is configured (:mod:`search.replica`).

    With a query, contracts whose every ranked article matched only weakly are left out and
    counted in ``weak_matches_left_out`` (:mod:`search.selectors._cut`); ``include_weak``
    lists them.
    """
    check_not_interpreted(not_interpreted)
    ignore = set(FIELDS) if not interpret_query else set(not_interpreted)
    try:
        with replica_reads():
            return _search(workspace, query, filters, page, ignore, include_weak)
    except ReplicaFailed:
        # On the primary: a read, run again.
        return _search(workspace, query, filters, page, ignore, include_weak)


def _search(
    workspace: Workspace,
    query: str | None,
    filters: SearchFilters | None,
    page: Page | None,
    ignore: Collection[str] = (),
    include_weak: bool = False,
) -> SearchResults:
    page = page or Page()
    query = clean_query(query)
    interpreted = (
        interpret(
            workspace=workspace, query=query, filters=filters or SearchFilters(), ignore=ignore
        )
        if query is not None
        else None
    )
    if interpreted is not None:
        query, filters = interpreted.query, interpreted.filters
    if query is not None and not has_content_word(query):
        raise InvalidSearchArguments(
            gettext(
                "The query holds only common words (such as « le », « de », « the ») or "
                "punctuation: add a word the clause would contain, or search with filters alone."
            ),
            {"field": "query", "reason": "no_content_word"},
        )
    filters = filters or SearchFilters()
    known = vocabulary(workspace=workspace, filters=filters)
    validate_against(filters, known)

    selection = select(workspace=workspace, filters=filters)
    excluded_unknown = selection.excluded_unknown()
    excluded_by_amendment = selection.excluded_by_amendment()
    total_candidates = searchable_documents(workspace).count()
    ranked = (
        _listed(selection, page)
        if query is None
        else _ranked(workspace, query, selection, page, include_weak)
    )
    return SearchResults(
        query=query,
        interpreted_filters=interpreted.read if interpreted else [],
        total_candidates=total_candidates,
        total_results=ranked.total,
        offset=page.offset,
        next_offset=page.next_offset(ranked.total),
        excluded_unknown=excluded_unknown,
        excluded_by_amendment=excluded_by_amendment,
        weak_matches_left_out=ranked.weak_left_out,
        results=_hits(ranked, filters, known.entity_ids, query),
    )


def _listed(selection: Selection, page: Page) -> _Ranked:
    """Without a query: every passing contract, by contract id (c2 before c10)."""
    ordered = selection.passing.annotate(ref_length=Length("ref")).order_by(
        "ref_length", "ref", "id"
    )
    return _Ranked(list(ordered[page.offset : page.end]), ordered.count())


def _ranked(
    workspace: Workspace, query: str, selection: Selection, page: Page, include_weak: bool
) -> _Ranked:
    """With a query: passing contracts by their best article's score, weak ones cut."""
    candidate_ids = (
        list(selection.passing.values_list("id", flat=True)) if selection.narrowed else None
    )
    hits = (
        []
        if candidate_ids == []
        else rank_chunks(
            workspace_id=workspace.pk,
            query=query,
            document_ids=candidate_ids,
            clause_types=selection.filters.clause_types,
        )
    )
    by_document: dict[int, list[ChunkHit]] = {}
    for hit in hits:
        by_document.setdefault(hit.document_id, []).append(hit)
    cut = relevance_cut(
        workspace_id=workspace.pk, query=query, by_document=by_document, include_weak=include_weak
    )
    by_document = cut.by_document
    scores = {doc_id: _hit_score(doc_hits[0]) for doc_id, doc_hits in by_document.items()}
    # Hits come best first (a reranker's unscored tail after its rescored head): a contract
    # ranks where its best article does.
    ranked_ids = list(by_document)
    page_ids = ranked_ids[page.offset : page.end]
    by_id = {d.pk: d for d in selection.passing.filter(pk__in=page_ids)}
    documents = [by_id[doc_id] for doc_id in page_ids if doc_id in by_id]
    return _Ranked(documents, len(ranked_ids), by_document, scores, cut.weak_left_out)


def _hits(
    ranked: _Ranked, filters: SearchFilters, names: dict[int, str], query: str | None
) -> list[SearchHit]:
    links = amendment_links(document_ids=[d.pk for d in ranked.documents])
    chunks = _chunks_for(ranked)
    justifying = (
        justifying_chunks(ranked.documents, filtered_fields(filters)) if query is None else {}
    )
    return [
        SearchHit(
            **contract_fields(document, links[document.pk]),
            matched_filters=matched_filters(document, filters, names),
            relevant_articles=[
                _article(chunks[hit.chunk_id], query, round(_hit_score(hit), 6))
                for hit in ranked.hits.get(document.pk, [])[:ARTICLES_PER_CONTRACT]
                if hit.chunk_id in chunks
            ]
            + [
                _article(chunk, None, None, justifies=name)
                for name, chunk in justifying.get(document.pk, [])
            ],
            score=round(ranked.scores[document.pk], 6) if document.pk in ranked.scores else None,
        )
        for document in ranked.documents
    ]


def _article(
    chunk: Chunk, query: str | None, score: float | None, justifies: str | None = None
) -> RelevantArticle:
    return RelevantArticle(
        chunk_id=chunk.pk,
        heading=chunk.heading or None,
        page=chunk.page_start,
        excerpt=excerpt(chunk.text, query),
        score=score,
        justifies=justifies,
        clause_types=clause_type_tags(chunk.clause_types),
        ocr_confidence=chunk.ocr_confidence,
    )


def clause_type_tags(stored: dict[str, float]) -> list[ClauseTypeTag]:
    """A chunk's stored clause types for display, most confident first."""
    return [
        ClauseTypeTag(key=key, label=label, confidence=confidence)
        for key, label, confidence in clause_types.clause_type_tags(stored)
    ]


def _hit_score(hit: ChunkHit) -> float:
    return hit.rerank_score if hit.rerank_score is not None else hit.score


def _chunks_for(ranked: _Ranked) -> dict[int, Chunk]:
    wanted = [
        hit.chunk_id
        for document in ranked.documents
        for hit in ranked.hits.get(document.pk, [])[:ARTICLES_PER_CONTRACT]
    ]
    if not wanted:
        return {}
    return {
        chunk.pk: chunk
        for chunk in Chunk.objects.filter(pk__in=wanted).only(
            "id",
            "heading",
            "page_start",
            "text",
            "document_id",
            "clause_types",
            "ocr_confidence",
        )
    }
