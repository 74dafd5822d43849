"""Search that learns from the firm: a query adapter fitted on relevance judgments.

``_fit``: the fitting (one function, used by ``train_search_adapter`` and the ACORD eval);
``_train``: the firm's judgments collected, the fit stored. The ranking applies the stored
adapter (:mod:`search.ranking._adapter`).
"""

from __future__ import annotations

from search.learning._fit import FitOptions, FitResult, JudgedQuery, fit_adapter
from search.learning._train import (
    TrainingRefused,
    judged_queries,
    search_adapter_train,
)

__all__ = [
    "FitOptions",
    "FitResult",
    "JudgedQuery",
    "TrainingRefused",
    "fit_adapter",
    "judged_queries",
    "search_adapter_train",
]
