"""Reciprocal rank fusion of the arms, and the whole ranking of one query."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.conf import settings

from search.ranking._adapter import adapt_query_vector
from search.ranking._common import ArmRow, ChunkHit
from search.ranking._fulltext import fts_arm
from search.ranking._prior import apply_prior
from search.ranking._reference import article_refs, reference_arm
from search.ranking._rerank import chunk_texts, rerank, rerank_enabled
from search.ranking._vector import embed_query, vector_arm

RRF_K = 60


def fuse(ranked_lists: dict[str, list[ArmRow]], k: int = RRF_K) -> list[ChunkHit]:
    """Reciprocal rank fusion: each arm adds 1 / (k + rank) to a chunk's score."""
    hits: dict[int, ChunkHit] = {}
    for arm, rows in ranked_lists.items():
        for rank, (chunk_id, document_id, value) in enumerate(rows, start=1):
            hit = hits.setdefault(chunk_id, ChunkHit(chunk_id, document_id))
            hit.score += 1.0 / (k + rank)
            hit.arms.append(arm)
            if arm == "fts":
                hit.fts_rank = value
            elif arm == "vector":
                hit.vector_similarity = value
            elif arm == "reference":
                hit.reference_match = True
    return sorted(hits.values(), key=lambda hit: (-hit.score, hit.chunk_id))


def rank_chunks(
    *,
    workspace_id: int,
    query: str,
    document_ids: Sequence[int] | None,
    arms: Sequence[str] = ("fts", "vector"),
    oversample: int = 100,
    use_rerank: bool | None = None,
    clause_types: Sequence[str] = (),
    use_prior: bool | None = None,
) -> list[ChunkHit]:
    """Chunks for ``query`` among ``document_ids`` (None: the whole workspace), best first.

    ``clause_types``: only chunks tagged with any of them. ``use_prior`` (default: whenever
    the vector arm runs) adds the clause-type prior to the fused scores (``_prior``).
    """
    hits = fuse(
        _arm_lists(_Candidates(workspace_id, document_ids, clause_types, oversample), query, arms)
    )
    if use_prior is None:
        use_prior = "vector" in arms
    if use_prior:
        weight = settings.LEXROOM_CLAUSE_PRIOR_WEIGHT
        hits = apply_prior(hits, workspace_id=workspace_id, query=query, weight=weight)
    if use_rerank is None:
        use_rerank = rerank_enabled()
    if use_rerank and hits:
        top = hits[: settings.LEXROOM_RERANK_TOP_N]
        hits = rerank(query, top, chunk_texts([hit.chunk_id for hit in top]))
    return hits


@dataclass(frozen=True)
class _Candidates:
    """Where every arm looks: the workspace, the candidate documents and clause types."""

    workspace_id: int
    document_ids: Sequence[int] | None
    clause_types: Sequence[str]
    limit: int


def _arm_lists(where: _Candidates, query: str, arms: Sequence[str]) -> dict[str, list[ArmRow]]:
    """Each requested arm's rows (and the reference arm's when the query names an article)."""
    workspace_id, document_ids = where.workspace_id, where.document_ids
    clause_types, limit = where.clause_types, where.limit
    lists: dict[str, list[ArmRow]] = {}
    if "fts" in arms:
        lists["fts"] = fts_arm(
            workspace_id=workspace_id,
            query=query,
            document_ids=document_ids,
            limit=limit,
            clause_types=clause_types,
        )
    if "vector" in arms:
        vector, dimension, model = embed_query(query)
        vector = adapt_query_vector(workspace_id=workspace_id, model=model, vector=vector)
        rows = vector_arm(
            workspace_id=workspace_id,
            query_vector=vector,
            dimension=dimension,
            model=model,
            document_ids=document_ids,
            limit=limit,
            clause_types=clause_types,
        )
        # Far neighbours are not evidence; keep them only if full-text also found them.
        floor = settings.LEXROOM_VECTOR_MIN_SIMILARITY
        fts_ids = {row[0] for row in lists.get("fts", [])}
        lists["vector"] = [row for row in rows if row[2] >= floor or row[0] in fts_ids]
    refs = article_refs(query)
    if refs:
        lists["reference"] = reference_arm(
            workspace_id=workspace_id,
            refs=refs,
            document_ids=document_ids,
            limit=limit,
            clause_types=clause_types,
        )
    return lists
