"""Optional cross-encoder reranking of the fused top-N."""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from typing import Any

from django.conf import settings
from django.db import connection

from documents.embeddings import load_cross_encoder, pick_device
from search.ranking._common import ChunkHit


@cache
def _cross_encoder(name: str, device: str) -> Any:
    return load_cross_encoder(name, device)


def rerank(query: str, hits: list[ChunkHit], texts: dict[int, str]) -> list[ChunkHit]:
    """Cross-encoder scores over the fused top-N; below the threshold a hit is cut as noise."""
    model = _cross_encoder(
        settings.LEXROOM_RERANK_MODEL, pick_device(settings.LEXROOM_EMBEDDING_DEVICE)
    )
    pairs = [(query, texts[hit.chunk_id]) for hit in hits]
    scores = model.predict(pairs, show_progress_bar=False) if pairs else []
    for hit, score in zip(hits, scores, strict=True):
        hit.rerank_score = float(score)
    kept = [h for h in hits if (h.rerank_score or 0.0) >= settings.LEXROOM_RERANK_THRESHOLD]
    return sorted(kept, key=lambda hit: (-(hit.rerank_score or 0.0), hit.chunk_id))


def rerank_enabled() -> bool:
    setting = settings.LEXROOM_RERANK
    if setting == "auto":
        return (
            bool(settings.LEXROOM_RERANK_MODEL)
            and pick_device(settings.LEXROOM_EMBEDDING_DEVICE) == "cuda"
        )
    return setting == "on"


def chunk_texts(chunk_ids: list[int]) -> dict[int, str]:
    """The indexed text of each chunk, as the cross-encoder reads it."""
    grouped: dict[int, str] = defaultdict(str)
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, index_text FROM documents_chunk WHERE id = ANY(%s)", [chunk_ids])
        for chunk_id, text in cursor.fetchall():
            grouped[chunk_id] = text
    return grouped
