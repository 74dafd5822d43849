"""What the ranking arms share: the hit they produce and the candidate-document clause."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# (chunk id, document id, the arm's own score), best first.
ArmRow = tuple[int, int, float]


@dataclass
class ChunkHit:
    chunk_id: int
    document_id: int
    score: float = 0.0
    fts_rank: float | None = None
    vector_similarity: float | None = None
    reference_match: bool = False
    rerank_score: float | None = None
    clause_prior: float | None = None  # agreement of the chunk's clause types with the query's
    arms: list[str] = field(default_factory=list)


def doc_filter(
    document_ids: Sequence[int] | None, clause_types: Sequence[str] = ()
) -> tuple[str, list[Any]]:
    """The SQL clause (on chunk alias ``c``) keeping the candidate documents, and chunks of
    any of ``clause_types`` when given (GIN-indexed array overlap), and its params."""
    where, params = "", list[Any]()
    if document_ids is not None:
        where, params = " AND c.document_id = ANY(%s)", [list(document_ids)]
    if clause_types:
        where += " AND c.clause_type_keys && %s::varchar(64)[]"
        params.append(list(clause_types))
    return where, params
