"""Optional reranking of the fused top-N: a cross-encoder, or a pointwise LLM judge on Ollama.

Either runs under a latency budget (``LEXROOM_RERANK_BUDGET_MS``): clauses are rescored best
fused first, and those not rescored when the budget runs out follow the rescored ones in
their fused order (``rerank_score`` None). Off on CPU unless asked (``LEXROOM_RERANK``).
"""

from __future__ import annotations

import time
from collections import defaultdict
from functools import cache
from typing import Any

from django.conf import settings

from core.embeddings import load_cross_encoder, pick_device
from search.ranking._common import ChunkHit
from search.ranking._judge import judge
from search.replica import read_connection

# Pairs the cross-encoder scores between two looks at the clock.
CROSS_ENCODER_BATCH = 16


@cache
def _cross_encoder(name: str, device: str) -> Any:
    return load_cross_encoder(name, device)


def rerank(query: str, hits: list[ChunkHit], texts: dict[int, str]) -> list[ChunkHit]:
    """Rescored hits first, best first; a cross-encoder score below the threshold is cut as
    noise; hits left unscored by the budget keep their fused order after them."""
    deadline = time.monotonic() + settings.LEXROOM_RERANK_BUDGET_MS / 1000
    order = [hit.chunk_id for hit in hits]
    if settings.LEXROOM_RERANKER == "llm":
        scores = judge(query, texts, order, deadline)
        threshold = None
    else:
        scores = _cross_encoder_scores(query, texts, order, deadline)
        threshold = settings.LEXROOM_RERANK_THRESHOLD
    for hit in hits:
        hit.rerank_score = scores.get(hit.chunk_id)
    rescored = [hit for hit in hits if hit.rerank_score is not None]
    if threshold is not None:
        rescored = [hit for hit in rescored if (hit.rerank_score or 0.0) >= threshold]
    rescored.sort(key=lambda hit: (-(hit.rerank_score or 0.0), hit.chunk_id))
    return rescored + [hit for hit in hits if hit.rerank_score is None]


def _cross_encoder_scores(
    query: str, texts: dict[int, str], order: list[int], deadline: float
) -> dict[int, float]:
    model = _cross_encoder(
        settings.LEXROOM_RERANK_MODEL, pick_device(settings.LEXROOM_EMBEDDING_DEVICE)
    )
    scores: dict[int, float] = {}
    for start in range(0, len(order), CROSS_ENCODER_BATCH):
        if start and time.monotonic() >= deadline:
            break
        batch = order[start : start + CROSS_ENCODER_BATCH]
        values = model.predict([(query, texts[i]) for i in batch], show_progress_bar=False)
        scores.update(zip(batch, (float(v) for v in values), strict=True))
    return scores


def rerank_enabled() -> bool:
    setting = settings.LEXROOM_RERANK
    if setting == "auto":
        has_model = settings.LEXROOM_RERANKER == "llm" or bool(settings.LEXROOM_RERANK_MODEL)
        return has_model and pick_device(settings.LEXROOM_EMBEDDING_DEVICE) == "cuda"
    return setting == "on"


def chunk_texts(chunk_ids: list[int]) -> dict[int, str]:
    """The indexed text of each chunk, as the reranker reads it."""
    grouped: dict[int, str] = defaultdict(str)
    with read_connection().cursor() as cursor:
        cursor.execute("SELECT id, index_text FROM documents_chunk WHERE id = ANY(%s)", [chunk_ids])
        for chunk_id, text in cursor.fetchall():
            grouped[chunk_id] = text
    return grouped
