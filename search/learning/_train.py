"""Training a firm's search adapter from its members' relevance judgments.

The judgments live in the firm's workspaces (tenant data): they are read in one audited
firm-wide scope (``tenant_bypass``), as firm reports do. Query texts are embedded again with
the active model (the ranking embeds them the same way); the judged articles' stored vectors
are used as they are. A fit that is refused, fails, or does not beat the identity on the
held-out queries stores nothing: the previous adapter stays.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from documents.embeddings import embedding_model_name, get_encoder
from search.learning._fit import FitOptions, FitResult, JudgedQuery, fit_adapter
from search.models import RelevanceJudgment, SearchAdapter
from workspaces.models import Firm
from workspaces.services import audit_record
from workspaces.tenancy import firm_scope, tenant_bypass

ACTOR = "system:train_search_adapter"


class TrainingRefused(Exception):
    """Nothing to train on (or not enough); the message says what is missing."""


def judged_queries(
    gains: Mapping[str, Mapping[int, float]], vectors: Mapping[int, Any]
) -> list[JudgedQuery]:
    """``gains``: query text -> {item id: gain}; ``vectors``: item id -> stored vector.
    Items without a vector are left out. The queries are embedded as the ranking does."""
    import numpy as np

    texts = [text for text, items in gains.items() if any(i in vectors for i in items)]
    if not texts:
        return []
    encoded = get_encoder().encode_queries(texts)
    queries = []
    for text, vector in zip(texts, encoded, strict=True):
        items = [i for i in gains[text] if i in vectors]
        queries.append(
            JudgedQuery(
                text=text,
                vector=np.asarray(vector, dtype=np.float32),
                items=np.stack([np.asarray(vectors[i], dtype=np.float32) for i in items]),
                gains=np.asarray([gains[text][i] for i in items], dtype=np.float32),
            )
        )
    return queries


def _firm_judgments(
    firm: Firm, model: str
) -> tuple[dict[str, dict[int, float]], dict[int, Any], Counter[int]]:
    """Per query, each article's share of "relevant" votes; the articles' vectors for
    ``model``; how many judgments each member made."""
    votes: dict[str, dict[int, list[bool]]] = defaultdict(lambda: defaultdict(list))
    vectors: dict[int, Any] = {}
    raters: Counter[int] = Counter()
    with tenant_bypass(firm=firm, reason="train_search_adapter", actor_label=ACTOR):
        rows = RelevanceJudgment.objects.filter(
            workspace__firm=firm, embedding_model=model
        ).values_list(
            "query", "chunk_id", "relevant", "chunk__embedding", "chunk__embedding_model", "user_id"
        )
        for query, chunk_id, relevant, embedding, chunk_model, user_id in rows.iterator(
            chunk_size=2000
        ):
            raters[user_id] += 1
            votes[query][chunk_id].append(relevant)
            if embedding is not None and chunk_model == model:
                vectors[chunk_id] = embedding
    gains = {
        query: {chunk: sum(v) / len(v) for chunk, v in items.items()}
        for query, items in votes.items()
    }
    return gains, vectors, raters


def _refuse_if_too_few(queries: list[JudgedQuery], judgments: int, model: str) -> None:
    needed = settings.LEXROOM_ADAPTER_MIN_QUERIES
    informative = sum(1 for query in queries if query.informative)
    if not judgments:
        message = gettext("This firm has no relevance judgments made with the model %(model)s.")
        raise TrainingRefused(message % {"model": model})
    if not queries:
        message = gettext(
            "None of the %(count)d judged articles has an embedding for %(model)s yet."
        )
        raise TrainingRefused(message % {"count": judgments, "model": model})
    if informative < needed:
        message = gettext(
            "Only %(have)d judged queries have an article rated relevant and one rated not "
            "relevant; at least %(need)d are needed (LEXROOM_ADAPTER_MIN_QUERIES)."
        )
        raise TrainingRefused(message % {"have": informative, "need": needed})


@transaction.atomic
def _store(firm: Firm, model: str, fit: FitResult, judgments: int, queries: int) -> SearchAdapter:
    with firm_scope(firm.pk):
        adapter, _ = SearchAdapter.objects.update_or_create(
            firm=firm,
            embedding_model=model,
            defaults={
                "dimension": fit.matrix.shape[0],
                "weights": fit.matrix.astype("float32").tobytes(),
                "judgments": judgments,
                "queries": queries,
                "metrics": fit.summary(),
                "trained_at": timezone.now(),
            },
        )
        audit_record(
            firm=firm,
            actor_label=ACTOR,
            action="search.adapter_trained",
            target=model,
            details={"judgments": judgments, "queries": queries, **fit.summary()},
        )
    return adapter


def search_adapter_train(
    *, firm: Firm, dry_run: bool = False, options: FitOptions | None = None
) -> dict[str, Any]:
    """Fit the firm's adapter for the active embedding model and store it (unless
    ``dry_run`` or it does not beat the identity). Raises :class:`TrainingRefused`."""
    model = embedding_model_name()
    gains, vectors, raters = _firm_judgments(firm, model)
    judgments = sum(raters.values())
    queries = judged_queries(gains, vectors)
    _refuse_if_too_few(queries, judgments, model)
    fit = fit_adapter(queries, options=options)
    report: dict[str, Any] = {
        "firm": firm.name,
        "embedding_model": model,
        "judgments": judgments,
        "judged_queries": len(gains),
        # Every member's ratings count alike: IT sees whether one member shaped the adapter.
        "raters": len(raters),
        "largest_rater_share": round(max(raters.values()) / judgments, 3),
        "articles_without_vector": sum(len(i) for i in gains.values())
        - sum(len(q.gains) for q in queries),
        "fit": fit.summary(),
        "stored": False,
    }
    if dry_run:
        report["reason"] = gettext("dry run: nothing stored.")
    elif not fit.improved:
        report["reason"] = gettext(
            "No training epoch ranked the held-out queries better than no adapter; the "
            "previous adapter, if any, is kept."
        )
    else:
        adapter = _store(firm, model, fit, judgments, len(queries))
        report.update(stored=True, trained_at=adapter.trained_at.isoformat())
    return report
