"""Timing the calls: each in its own tenant-scope transaction, as a request would run it."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.test.utils import override_settings

from core.embeddings import load_cross_encoder, pick_device, resolve_model_path
from core.llm import llm_client
from lab.search.bench._workload import Call, search_calls
from search.ranking import judge_model
from workspaces.models import Workspace
from workspaces.tenancy import workspace_scope

WARMUP_QUERIES = 10
# A CPU cross-encoder takes seconds per query: a sample is enough to see its cost.
RERANK_QUERIES = 20
MEASURED = ("filter_only", "fts", "vector", "hybrid", "hybrid_filtered", "hybrid_rerank")


def summary(samples_ms: list[float]) -> dict[str, float]:
    p50, p95, p99 = np.percentile(np.asarray(samples_ms), [50, 95, 99])
    return {
        "p50": round(float(p50), 2),
        "p95": round(float(p95), 2),
        "p99": round(float(p99), 2),
        "mean": round(float(np.mean(samples_ms)), 2),
        "n": len(samples_ms),
    }


def timed(workspace: Workspace, call: Call) -> float:
    """Milliseconds of one call in its own tenant-scope transaction, as a request runs."""
    started = time.perf_counter()
    with workspace_scope(workspace):
        call()
    return (time.perf_counter() - started) * 1000


def measure(
    workspace: Workspace, queries: int, seed: int, note: Callable[[str], None]
) -> tuple[dict[str, Any], tuple[str, Call] | None]:
    """Latency summaries per measurement, and the slowest call of the slowest arm."""
    calls = search_calls(workspace, queries, seed)
    latency: dict[str, Any] = {}
    worst: dict[str, tuple[float, Call]] = {}
    # Reranking is measured on its own below: "hybrid" is the latency without it.
    with override_settings(LEXROOM_RERANK="off"):
        for name, measured in calls.items():
            for call in measured[:WARMUP_QUERIES]:
                timed(workspace, call)
            samples = [timed(workspace, call) for call in measured]
            latency[name] = summary(samples)
            slowest = int(np.argmax(samples))
            worst[name] = (samples[slowest], measured[slowest])
            note(f"  {name}: {latency[name]}")
    latency["hybrid_rerank"] = _measure_rerank(workspace, calls["hybrid"])
    arms = {name: latency[name]["p95"] for name in worst if name != "query_embedding"}
    slowest_arm = max(arms, key=lambda name: arms[name]) if arms else None
    ordered = {name: latency[name] for name in (*MEASURED, "query_embedding")}
    return ordered, (slowest_arm, worst[slowest_arm][1]) if slowest_arm else None


def _measure_rerank(workspace: Workspace, calls: list[Call]) -> dict[str, Any]:
    unavailable = rerank_unavailable()
    if unavailable:
        return {"skipped": unavailable}
    with override_settings(LEXROOM_RERANK="on"):
        timed(workspace, calls[0])
        samples = [timed(workspace, call) for call in calls[:RERANK_QUERIES]]
    return summary(samples)


def rerank_unavailable() -> str | None:
    """Why the rerank model cannot be loaded offline (None when it can)."""
    if settings.LEXROOM_RERANKER == "llm":
        return _judge_unavailable()
    name = settings.LEXROOM_RERANK_MODEL
    if not name:
        return "LEXROOM_RERANK_MODEL is empty"
    try:
        path = resolve_model_path(name)
        if not Path(path).is_dir():
            from huggingface_hub import try_to_load_from_cache

            if not isinstance(try_to_load_from_cache(path, "config.json"), str):
                return f"{name} is not in the local Hugging Face cache"
        # The public loader, not search.ranking's cached one: the warm-up call below loads
        # that one before anything is timed.
        load_cross_encoder(name, pick_device(settings.LEXROOM_EMBEDDING_DEVICE))
    except Exception as exc:  # a missing or broken model is a reason to skip, not fail
        return f"{name} cannot be loaded: {exc}"[:300]
    return None


def _judge_unavailable() -> str | None:
    """Why the LLM judge cannot answer (Ollama down, model not pulled), or None."""
    model = judge_model()
    try:
        llm_client().show(model)
    except Exception as exc:  # down or not pulled is a reason to skip, not fail
        return f"LLM judge {model} at {settings.OLLAMA_URL}: {exc}"[:300]
    return None
