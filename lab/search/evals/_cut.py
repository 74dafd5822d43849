"""Calibration of the search's relevance cut on ACORD (``eval_search --suite acord-cut``).

Each query ranks the whole corpus as the product does (hybrid, prior, no reranker); each
ranked clause gets the two measures the cut reads (the share of the query's content words in
its text, the vector arm's cosine). A clause the query rates 3 stars or more should pass;
one rated 1 star, or not rated for it (another topic), is what the cut is for. On a grid of
the two thresholds, for each target share of the 3-star clauses kept, the pair that keeps it
and cuts the most of the others is chosen (the larger thresholds on a tie); ACORD's clauses
are one per document, so a clause passing is its contract listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from lab.search.evals._index import IndexedCorpus, log, scope
from lab.search.evals._retrieval import EvalQuery
from search.ranking import adapter_override, rank_chunks, word_shares

# Word shares are fractions of a few words: twentieths reach 1/3, 1/4, 2/5... closely enough.
SHARE_GRID = [round(step / 20, 4) for step in range(21)]
SIMILARITY_GRID = [round(0.2 + step / 160, 4) for step in range(97)]  # 0.2 to 0.8
RELEVANT_GRADE = 2  # 3 stars and more (grade = stars - 1)
RECALL_TARGETS = (0.9, 0.925, 0.95, 0.975)


@dataclass(frozen=True)
class _Measured:
    share: float
    similarity: float  # -1 when the vector arm did not rank the clause
    positive: bool  # rated 3 stars or more


def _measure(indexed: IndexedCorpus, queries: Sequence[EvalQuery]) -> list[_Measured]:
    """(share, similarity, positive) of every clause a query ranks as search_data_room ranks
    them (rank_chunks' defaults), unrated ones negative."""
    to_corpus = indexed.corpus_id_by_document
    measured: list[_Measured] = []
    with adapter_override(None), scope(indexed.workspace):
        for position, query in enumerate(queries, start=1):
            hits = rank_chunks(
                workspace_id=indexed.workspace.pk,
                query=query.text,
                document_ids=None,
                use_rerank=False,
            )
            shares = word_shares(
                workspace_id=indexed.workspace.pk,
                query=query.text,
                chunk_ids=[hit.chunk_id for hit in hits],
            )
            for hit in hits:
                grade = query.grades.get(to_corpus.get(hit.document_id, ""), 0)
                measured.append(
                    _Measured(
                        shares[hit.chunk_id],
                        -1.0 if hit.vector_similarity is None else hit.vector_similarity,
                        grade >= RELEVANT_GRADE,
                    )
                )
            if position % 10 == 0:
                log(f"  cut: {position}/{len(queries)} queries")
    return measured


def _rates(measured: list[_Measured], share: float, similarity: float) -> tuple[float, float]:
    """(positives kept, negatives cut) at these thresholds."""
    kept = [m.share >= share or m.similarity >= similarity for m in measured]
    positives = [k for k, m in zip(kept, measured, strict=True) if m.positive]
    negatives = [k for k, m in zip(kept, measured, strict=True) if not m.positive]
    return (
        sum(positives) / max(1, len(positives)),
        1 - sum(negatives) / max(1, len(negatives)),
    )


def cut_calibration(indexed: IndexedCorpus, queries: Sequence[EvalQuery]) -> dict[str, Any]:
    """The thresholds chosen for each recall target, and the shipped ones, with what each
    keeps and cuts."""
    measured = _measure(indexed, queries)
    grid = [
        (*_rates(measured, share, similarity), share, similarity)
        for share in SHARE_GRID
        for similarity in SIMILARITY_GRID
    ]
    chosen = {}
    for target in RECALL_TARGETS:
        passing = [
            (cut, share + sim, share, sim) for kept, cut, share, sim in grid if kept >= target
        ]
        chosen[str(target)] = max(passing) if passing else None
    shipped = (
        settings.LEXROOM_RELEVANCE_MIN_WORD_SHARE,
        settings.LEXROOM_RELEVANCE_MIN_SIMILARITY,
    )

    def point(share: float, similarity: float) -> dict[str, float]:
        kept, cut = _rates(measured, share, similarity)
        return {
            "min_word_share": share,
            "min_similarity": similarity,
            "relevant_kept": round(kept, 4),
            "others_cut": round(cut, 4),
        }

    return {
        "ranked_clauses": len(measured),
        "relevant_clauses": sum(m.positive for m in measured),
        "chosen": {
            target: point(best[2], best[3]) if best else None for target, best in chosen.items()
        },
        "shipped": point(*shipped),
        "words_only": point(shipped[0], 2.0),
        "meaning_only": point(2.0, shipped[1]),
    }
