"""How plainly an article answers a query, apart from how it ranks: the share of the query's
content words its own text holds (stemmed as full-text stems them), and its meaning's
nearness (the vector arm's cosine). Ranks are relative (every contract has a best article);
these are absolute, so a contract whose best article is weak can be left out.

SQL here is assembled from constants; every value from a caller is a bound parameter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from django.conf import settings

from core.normalize import fold_accents
from search.ranking._common import ChunkHit
from search.ranking._fulltext import _FUNCTION_WORDS, _query_words, _term_stats
from search.replica import read_connection


def content_words(query: str) -> dict[str, list[str]]:
    """The query's content words, each with the stems (French or English) that find it.

    A hyphenated word is one word found by its own stem ("non-concurrence" by
    ``non-concurr``), not by its parts: "non" and "concurrence" apart are found in nearly
    any contract.
    """
    words = {
        word: stems
        for word, stems in _query_words(fold_accents(query)).items()
        if word not in _FUNCTION_WORDS
    }
    parts = {part for word in words if "-" in word for part in word.split("-")}
    return {
        word: ([stem for stem in stems if "-" in stem] or stems) if "-" in word else stems
        for word, stems in words.items()
        if word not in parts
    }


def word_shares(*, workspace_id: int, query: str, chunk_ids: Sequence[int]) -> dict[int, float]:
    """Chunk id -> the share (0 to 1) of the query's content words found in its own text.

    The text is the chunk's body (weight B: its heading and words), not the context line
    every chunk of a contract carries (title, parties, type), which would lend each article
    the title's words. Words no chunk of the workspace holds are not counted: they tell no
    contract from another, and a question's own words ("marque ce résultat comme
    pertinent") would thin every article's share. Read in the caller's tenant transaction.
    """
    words = content_words(query)
    stats = _term_stats(workspace_id, sorted({s for group in words.values() for s in group}))
    if stats is not None:  # None before the workspace's statistics are first computed
        words = {word: group for word, group in words.items() if stats.df.keys() & set(group)}
    if not words or not chunk_ids:
        return dict.fromkeys(chunk_ids, 0.0)
    stems = sorted({stem for group in words.values() for stem in group})
    with read_connection().cursor() as cursor:
        cursor.execute(
            "SELECT c.id, ARRAY(SELECT lexeme FROM unnest(ts_filter(c.search_vector, '{b}'))"
            "  WHERE lexeme = ANY(%s)) FROM documents_chunk c WHERE c.id = ANY(%s)",
            [stems, list(chunk_ids)],
        )
        found: Mapping[int, set[str]] = {row[0]: set(row[1]) for row in cursor.fetchall()}
    return {
        chunk_id: sum(
            1 for group in words.values() if found.get(chunk_id, set()).intersection(group)
        )
        / len(words)
        for chunk_id in chunk_ids
    }


def article_passes(hit: ChunkHit, word_share: float) -> bool:
    """Whether an article answers the query plainly enough to list its contract: it holds
    ``LEXROOM_RELEVANCE_MIN_WORD_SHARE`` of the query's words, or is
    ``LEXROOM_RELEVANCE_MIN_SIMILARITY`` near it in meaning, or is the article it names, or
    the LLM judge rated it relevant."""
    similarity = hit.vector_similarity
    return (
        hit.reference_match
        or word_share >= settings.LEXROOM_RELEVANCE_MIN_WORD_SHARE
        or (similarity is not None and similarity >= settings.LEXROOM_RELEVANCE_MIN_SIMILARITY)
        or _judged_relevant(hit)
    )


# The LLM judge scores on ACORD's scale (0 = 1 star ... 4 = 5 stars); 3 stars and more is
# what the thresholds were calibrated to keep. A cross-encoder's scores have no such scale:
# its own threshold (LEXROOM_RERANK_THRESHOLD) has already cut the hits it finds noise.
JUDGE_RELEVANT_SCORE = 2.0


def _judged_relevant(hit: ChunkHit) -> bool:
    return (
        hit.rerank_score is not None
        and settings.LEXROOM_RERANKER == "llm"
        and hit.rerank_score >= JUDGE_RELEVANT_SCORE
    )
