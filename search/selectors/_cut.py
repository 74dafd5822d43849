"""The contract-level relevance cut of a clause query.

Ranking gives every contract with any faint full-text or vector match a place; a lawyer
asking "exclusivité territoriale" wants the contracts that have such a clause. A contract is
listed when one of its ranked articles passes the bar (:func:`search.ranking.article_passes`);
the others are counted, never dropped silently, and shown on request (``include_weak``).
"""

from __future__ import annotations

from dataclasses import dataclass

from search.ranking import ChunkHit, article_passes, word_shares


@dataclass(frozen=True)
class Cut:
    """The contracts kept, their hits in rank order, and how many were left out as weak."""

    by_document: dict[int, list[ChunkHit]]
    weak_left_out: int


def relevance_cut(
    *, workspace_id: int, query: str, by_document: dict[int, list[ChunkHit]], include_weak: bool
) -> Cut:
    """Contracts (document id -> hits, best first) with an article that passes the bar; with
    ``include_weak``, every contract, none counted as left out."""
    if include_weak or not by_document:
        return Cut(by_document, 0)
    chunk_ids = [hit.chunk_id for hits in by_document.values() for hit in hits]
    shares = word_shares(workspace_id=workspace_id, query=query, chunk_ids=chunk_ids)
    kept = {
        document_id: hits
        for document_id, hits in by_document.items()
        if any(article_passes(hit, shares.get(hit.chunk_id, 0.0)) for hit in hits)
    }
    return Cut(kept, len(by_document) - len(kept))
