"""ACORD's judged protocol (Wang et al., ACL 2025): each query ranks only the clauses rated
for it, through the production ranking restricted to them; the adapter and reranked arms."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from lab.search.evals._adapter import adapter_report
from lab.search.evals._index import IndexedCorpus
from lab.search.evals._retrieval import ARMS, ArmResult, EvalQuery, Metric, judged_arm
from search.ranking import adapter_override


def judged_report(
    indexed: IndexedCorpus,
    queries: list[EvalQuery],
    metrics: dict[str, Metric],
    *,
    oversample: int,
    rerank: bool,
    adapter_splits: tuple[list[EvalQuery], list[EvalQuery]] | None,
) -> dict[str, Any]:
    """ACORD as its authors score it: each query ranks only the clauses rated for it; with
    ``adapter_splits`` (train, valid), also with a search adapter fitted on them; with
    ``rerank``, also the hybrid arm through the configured reranker (``hybrid+rerank``)."""
    arms: dict[str, ArmResult] = {}
    with adapter_override(None):  # as shipped, whatever adapter the eval firm may have
        for arm in ARMS:
            arms[arm] = judged_arm(
                indexed=indexed,
                arm=arm,
                queries=queries,
                metrics=metrics,
                oversample=oversample,
            )
        if rerank:
            arms["hybrid+rerank"] = judged_arm(
                indexed=indexed,
                arm="hybrid",
                queries=queries,
                metrics=metrics,
                oversample=oversample,
                label=f"+ rerank ({settings.LEXROOM_RERANKER})",
                rerank=True,
            )
    adapter = None
    if adapter_splits is not None:
        train, valid = adapter_splits
        adapter = adapter_report(
            indexed=indexed,
            train=train,
            valid=valid,
            test=queries,
            metrics=metrics,
            oversample=oversample,
            without=arms,
        )
    return {
        **({"adapter": adapter} if adapter is not None else {}),
        "protocol": "judged",
        "arms": {name: result.summary() for name, result in arms.items()},
        "notes": [
            "each query ranks only the clauses rated for it (ACORD, Wang et al., ACL 2025); "
            "gain = grade (1 star = 0 ... 5 stars = 4); p@5_Nstar = clauses rated >= N stars "
            "in the top 5 / min(5, how many the query has), queries with none left out.",
            "paper, test split, nDCG@5: BM25 0.525, best embedding (OpenAI large) 0.621, "
            "BM25 + MiniLM cross-encoder 0.593, bi-encoder + GPT-4o reranker 0.791.",
        ],
    }
