"""Clause ranking inside Postgres: full-text and vector arms, fused by reciprocal rank.

Both arms run in the caller's tenant transaction (RLS applies) and take the same candidate
document ids, so filters and tenancy hold in each arm. Optional cross-encoder reranking
runs over the fused top-N. The parts: ``_fulltext`` (BM25), ``_vector`` (pgvector),
``_reference`` (article numbers), ``_fusion`` (RRF and :func:`rank_chunks`), ``_rerank``;
``_relevance`` measures how plainly an article answers (the search's relevance cut).
Tunables (``MATCH_BUDGET``, ``EXACT_VECTOR_MAX_DOCUMENTS``…) live in their own module
(patch them there), so they are not re-exported here.
"""

from __future__ import annotations

from search.ranking._adapter import adapter_override
from search.ranking._common import ArmRow, ChunkHit
from search.ranking._fulltext import TermStats, fts_arm, has_content_word
from search.ranking._fusion import fuse, rank_chunks
from search.ranking._judge import judge_model
from search.ranking._reference import article_refs, reference_arm
from search.ranking._relevance import article_passes, content_words, word_shares
from search.ranking._rerank import _cross_encoder, rerank, rerank_enabled
from search.ranking._vector import embed_query, vector_arm

__all__ = [
    "ArmRow",
    "ChunkHit",
    "TermStats",
    "_cross_encoder",
    "adapter_override",
    "article_passes",
    "article_refs",
    "content_words",
    "embed_query",
    "fts_arm",
    "fuse",
    "has_content_word",
    "judge_model",
    "rank_chunks",
    "reference_arm",
    "rerank",
    "rerank_enabled",
    "vector_arm",
    "word_shares",
]
