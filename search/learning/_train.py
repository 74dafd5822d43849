"""Training a firm's search adapter from its members' relevance judgments.

The judgments live in the firm's workspaces (tenant data): they are read in one audited
firm-wide scope (``tenant_bypass``), as firm reports do. Query texts are embedded again with
the active model (the ranking embeds them the same way); the judged articles' stored vectors
are used as they are. No member's ratings may be more than ``LEXROOM_ADAPTER_MAX_USER_SHARE``
of those the fit uses (``_quota``). A fit that is refused, fails, or does not beat the
identity on the held-out queries stores nothing; one that does is stored as a candidate,
which the ranking ignores until a firm admin approves it (``_review``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from core.embeddings import embedding_model_name, get_encoder
from search.learning._fit import FitOptions, FitResult, JudgedQuery, fit_adapter
from search.learning._quota import RaterUse, Rating, ratings_within_quota
from search.models import RelevanceJudgment, SearchAdapter
from workspaces.audit import audit_record
from workspaces.models import Firm
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


def _firm_ratings(firm: Firm, model: str) -> tuple[list[Rating], dict[int, Any]]:
    """Every judgment of the firm's members made with ``model``; the judged articles'
    vectors for ``model``."""
    ratings: list[Rating] = []
    vectors: dict[int, Any] = {}
    with tenant_bypass(firm=firm, reason="train_search_adapter", actor_label=ACTOR):
        rows = RelevanceJudgment.objects.filter(
            workspace__firm=firm, embedding_model=model
        ).values_list(
            "query", "chunk_id", "relevant", "chunk__embedding", "chunk__embedding_model", "user_id"
        )
        for query, chunk_id, relevant, embedding, chunk_model, user_id in rows.iterator(
            chunk_size=2000
        ):
            ratings.append(
                Rating(user_id=user_id, query=query, chunk_id=chunk_id, relevant=relevant)
            )
            if embedding is not None and chunk_model == model:
                vectors[chunk_id] = embedding
    return ratings, vectors


def _gains(ratings: list[Rating]) -> dict[str, dict[int, float]]:
    """Per query, each article's share of "relevant" votes."""
    votes: dict[str, dict[int, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for rating in ratings:
        votes[rating.query][rating.chunk_id].append(rating.relevant)
    return {
        query: {chunk: sum(v) / len(v) for chunk, v in items.items()}
        for query, items in votes.items()
    }


def _usable(
    gains: Mapping[str, Mapping[int, float]], vectors: Mapping[int, Any]
) -> tuple[int, int]:
    """(queries with a judged vector, informative ones): what :func:`judged_queries` would
    give, counted without embedding anything."""
    queries = informative = 0
    for items in gains.values():
        values = [gain for chunk, gain in items.items() if chunk in vectors]
        queries += bool(values)
        informative += len(values) >= 2 and max(values) > 0 and min(values) < max(values)
    return queries, informative


def _refuse_if_too_few(usable: tuple[int, int], judgments: int, model: str) -> None:
    needed = settings.LEXROOM_ADAPTER_MIN_QUERIES
    queries, informative = usable
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


def _refuse_if_one_voice(use: list[RaterUse]) -> None:
    """Too few distinct raters, or none left once each is held to their share."""
    needed = settings.LEXROOM_ADAPTER_MIN_RATERS
    share = settings.LEXROOM_ADAPTER_MAX_USER_SHARE
    if len(use) < needed or not any(rater.used for rater in use):
        message = gettext(
            "Only %(have)d members rated results; at least %(need)d are needed "
            "(LEXROOM_ADAPTER_MIN_RATERS), and no member's ratings may be more than "
            "%(share)d%% of those used (LEXROOM_ADAPTER_MAX_USER_SHARE)."
        )
        values = {"have": len(use), "need": needed, "share": round(share * 100)}
        raise TrainingRefused(message % values)


# Approved adapters kept for rollbacks (the active one and those before it).
KEPT_APPROVALS = 5


@transaction.atomic
def _store(firm: Firm, model: str, fit: FitResult, report: dict[str, Any]) -> SearchAdapter:
    """A new candidate; the previous unapproved candidates and withdrawn adapters go, and
    approvals beyond the last ``KEPT_APPROVALS`` (rows are up to ``d²`` floats each)."""
    with firm_scope(firm.pk):
        adapters = SearchAdapter.objects.filter(firm=firm, embedding_model=model)
        adapters.filter(approved_at__isnull=True).delete()
        adapters.filter(rolled_back_at__isnull=False).delete()
        kept = adapters.order_by("-approved_at").values_list("pk", flat=True)[:KEPT_APPROVALS]
        adapters.exclude(pk__in=list(kept)).delete()
        adapter = SearchAdapter.objects.create(
            firm=firm,
            embedding_model=model,
            dimension=fit.matrix.shape[0],
            weights=fit.matrix.astype("float32").tobytes(),
            judgments=report["used_judgments"],
            queries=report["fit"]["train_queries"] + report["fit"]["held_out_queries"],
            metrics={**fit.summary(), "raters": report["rater_ids"]},
            trained_at=timezone.now(),
        )
        audit_record(
            firm=firm,
            actor_label=ACTOR,
            action="search.adapter_trained",
            target=f"{model}#{adapter.pk}",
            details={"judgments": adapter.judgments, "queries": adapter.queries, **fit.summary()},
        )
    return adapter


def search_adapter_train(
    *, firm: Firm, dry_run: bool = False, options: FitOptions | None = None
) -> dict[str, Any]:
    """Fit the firm's adapter for the active embedding model on its members' ratings, each
    member held to their share, and store it as a candidate for a firm admin's approval
    (unless ``dry_run`` or it does not beat the identity). Raises :class:`TrainingRefused`."""
    model = embedding_model_name()
    ratings, vectors = _firm_ratings(firm, model)
    judgments = len(ratings)
    # Enough data at all, before asking whether enough people made it (the plainer reason).
    _refuse_if_too_few(_usable(_gains(ratings), vectors), judgments, model)
    used, use = ratings_within_quota(ratings, max_share=settings.LEXROOM_ADAPTER_MAX_USER_SHARE)
    _refuse_if_one_voice(use)
    gains = _gains(used)
    _refuse_if_too_few(_usable(gains, vectors), len(used), model)
    queries = judged_queries(gains, vectors)
    fit = fit_adapter(queries, options=options)
    report: dict[str, Any] = {
        "firm": firm.name,
        "embedding_model": model,
        "judgments": judgments,
        "used_judgments": len(used),
        "judged_queries": len(gains),
        "raters": len(use),
        "largest_rater_share": round(max(r.judgments for r in use) / judgments, 3),
        "largest_used_share": round(max(r.used for r in use) / len(used), 3),
        # Per rater, largest first, by rank: the command's output names nobody.
        "per_rater": [
            {"rater": rank, "judgments": r.judgments, "used": r.used}
            for rank, r in enumerate(use, start=1)
        ],
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
            "adapter in use, if any, is kept."
        )
    else:
        rater_ids = [{"user_id": r.user_id, "judgments": r.judgments, "used": r.used} for r in use]
        adapter = _store(firm, model, fit, {**report, "rater_ids": rater_ids})
        report.update(
            stored=True,
            adapter_id=adapter.pk,
            approved=False,
            trained_at=adapter.trained_at.isoformat(),
        )
    return report
