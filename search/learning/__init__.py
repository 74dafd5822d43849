"""Search that learns from the firm: a query adapter fitted on relevance judgments.

``_fit``: the fitting (one function, used by ``train_search_adapter`` and the ACORD eval);
``_quota``: each rater's share of the ratings a fit uses, capped; ``_train``: the firm's
judgments collected, the fit stored as a candidate; ``_review``: a firm admin's review,
approval and rollback. The ranking applies the approved adapter
(:mod:`search.ranking._adapter`).
"""

from __future__ import annotations

from search.learning._fit import FitOptions, FitResult, JudgedQuery, fit_adapter
from search.learning._quota import RaterUse, Rating, quota_level, ratings_within_quota
from search.learning._review import (
    AdapterNotFound,
    AdapterReview,
    QueryChange,
    adapter_in_use,
    adapter_review,
    search_adapter_approve,
    search_adapter_roll_back,
)
from search.learning._train import (
    TrainingRefused,
    judged_queries,
    search_adapter_train,
)

__all__ = [
    "AdapterNotFound",
    "AdapterReview",
    "FitOptions",
    "FitResult",
    "JudgedQuery",
    "QueryChange",
    "RaterUse",
    "Rating",
    "TrainingRefused",
    "adapter_in_use",
    "adapter_review",
    "fit_adapter",
    "judged_queries",
    "quota_level",
    "ratings_within_quota",
    "search_adapter_approve",
    "search_adapter_roll_back",
    "search_adapter_train",
]
