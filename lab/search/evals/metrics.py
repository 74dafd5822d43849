"""Ranking metrics over corpus ids: nDCG@k (graded), Recall@k, MRR@k, star precision@k.

Pure functions, no Django: a ranking is a list of corpus ids (best first, no repeats), the
judgements a mapping corpus id -> grade, where only a grade above zero counts as relevant.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence


def dcg(gains: Iterable[float]) -> float:
    """Discounted cumulative gain with the standard log2(rank + 1) discount."""
    return sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains, start=1))


def ndcg_at_k(ranking: Sequence[str], grades: Mapping[str, int], k: int) -> float:
    """nDCG@k with the grade as gain; the ideal ranking comes from the query's own judgements.

    Unjudged ids count as grade 0 (ACORD judges irrelevant clauses explicitly, so an unjudged
    clause in the top k is a miss, not a hole).
    """
    ideal = dcg(sorted((g for g in grades.values() if g > 0), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    return dcg(max(grades.get(doc_id, 0), 0) for doc_id in ranking[:k]) / ideal


def star_precision_at_k(
    ranking: Sequence[str], grades: Mapping[str, int], k: int, min_grade: int
) -> float | None:
    """ACORD's star precision: the clauses graded at least ``min_grade`` (3★ = grade 2, 4★ = 3,
    5★ = 4) among the top k, over min(k, how many the query has); None for a query with none
    (it is left out of the mean, not counted as 0)."""
    wanted = {doc_id for doc_id, grade in grades.items() if grade >= min_grade}
    if not wanted:
        return None
    return len(wanted.intersection(ranking[:k])) / min(k, len(wanted))


def recall_at_k(ranking: Sequence[str], relevant: set[str], k: int) -> float:
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranking[:k])) / len(relevant)


def mrr_at_k(ranking: Sequence[str], relevant: set[str], k: int) -> float:
    """Reciprocal rank of the first relevant id within the top k (0 when none)."""
    for rank, doc_id in enumerate(ranking[:k], start=1):
        if doc_id in relevant:
            return 1.0 / rank
    return 0.0


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def dedupe(ids: Iterable[str]) -> list[str]:
    """Ids in first-seen order: a document's best chunk decides its rank."""
    seen: set[str] = set()
    ordered = []
    for doc_id in ids:
        if doc_id not in seen:
            seen.add(doc_id)
            ordered.append(doc_id)
    return ordered
