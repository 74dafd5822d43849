"""ACORD as a firm's judgments: the search adapter fitted on the train split, scored on test.

The train split's qrels stand for a firm's ratings (query text, rated clauses, grade 0-4 as
the gain); the valid split stops the training; the test split is ranked with and without the
adapter, judged protocol. The fit is :func:`search.learning.fit_adapter`, the one
``train_search_adapter`` runs; the ranking applies the matrix where the product does
(:mod:`search.ranking._adapter`), given here instead of read from the database.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from core.embeddings import embedding_model_name
from documents.models import Chunk
from lab.search.evals._index import IndexedCorpus, log, scope
from lab.search.evals._retrieval import ArmResult, EvalQuery, Metric, judged_arm
from search.learning import FitOptions, JudgedQuery, fit_adapter, judged_queries
from search.ranking import adapter_override

ADAPTER_ARMS = ("vector", "hybrid")


def _chunks(indexed: IndexedCorpus, model: str) -> tuple[dict[int, Any], dict[int, list[int]]]:
    """The eval workspace's chunk vectors for ``model``, and each document's chunk ids."""
    vectors: dict[int, Any] = {}
    by_document: dict[int, list[int]] = defaultdict(list)
    with scope(indexed.workspace):
        rows = Chunk.objects.filter(
            workspace=indexed.workspace, embedding_model=model, embedding__isnull=False
        ).values_list("pk", "document_id", "embedding")
        for chunk_id, document_id, embedding in rows.iterator(chunk_size=2000):
            vectors[chunk_id] = embedding
            by_document[document_id].append(chunk_id)
    return vectors, by_document


def _judged(
    queries: Sequence[EvalQuery],
    indexed: IndexedCorpus,
    vectors: dict[int, Any],
    by_document: dict[int, list[int]],
) -> list[JudgedQuery]:
    """Each rated clause's chunks carry the clause's grade (most clauses are one chunk)."""
    to_document = {corpus_id: pk for pk, corpus_id in indexed.corpus_id_by_document.items()}
    gains: dict[str, dict[int, float]] = {}
    for query in queries:
        items = gains.setdefault(query.text, {})
        for corpus_id, grade in query.grades.items():
            for chunk_id in by_document.get(to_document.get(corpus_id, -1), []):
                items[chunk_id] = float(grade)
    return judged_queries(gains, vectors)


def adapter_report(
    *,
    indexed: IndexedCorpus,
    train: Sequence[EvalQuery],
    valid: Sequence[EvalQuery],
    test: Sequence[EvalQuery],
    metrics: dict[str, Metric],
    oversample: int,
    without: dict[str, ArmResult],
) -> dict[str, Any]:
    """Fit on ``train`` (stopping on ``valid``), rank ``test`` with the adapter, per arm, and
    the gain over ``without`` (the same arms without it)."""
    vectors, by_document = _chunks(indexed, embedding_model_name())
    log(f"  adapter: fitting on {len(train)} train queries, stopping on {len(valid)} valid")
    try:
        fit = fit_adapter(
            _judged(train, indexed, vectors, by_document),
            held_out=_judged(valid, indexed, vectors, by_document),
            options=FitOptions(),
        )
    except ValueError as exc:  # a subset corpus can leave the splits' clauses out
        return {"trained_on": "train", "skipped": str(exc)}
    arms: dict[str, Any] = {}
    with adapter_override(fit.matrix):
        for arm in ADAPTER_ARMS:
            adapted = judged_arm(
                indexed=indexed,
                arm=arm,
                queries=test,
                metrics=metrics,
                oversample=oversample,
                label="+ adapter",
            )
            arms[arm] = {
                **adapted.summary(),
                "gain": {
                    name: round(value - without[arm].metrics[name], 4)
                    for name, value in adapted.metrics.items()
                },
            }
    return {
        "trained_on": "train",
        "early_stopping_on": "valid",
        "fit": fit.summary(),
        "arms": arms,
        "notes": [
            "train split qrels as a firm's judgments (grade 0-4 = gain; the listwise target "
            "puts 2**grade - 1 on each clause), fitted by search.learning.fit_adapter; "
            "test queries are other queries over the same clauses; gain = with - without."
        ],
    }
