"""One benchmark run: the room (generated or reused), its indexes rebuilt, latency, EXPLAIN."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

from core.embeddings import Encoder, get_encoder
from documents.services import workspace_contents_delete
from lab.documents.bench import (
    BENCH_FIRM,
    BenchRefused,
    bench_workspace_create,
    bench_workspace_find,
    bench_workspace_release,
)
from lab.report import Reporter
from lab.search.bench._corpus import make_topics, topic_centroids
from lab.search.bench._explain import explain
from lab.search.bench._indexes import SharedIndexes
from lab.search.bench._latency import measure
from lab.search.bench._plan import Plan, plan_data_room
from lab.search.bench._write import complete, write_chunks, write_metadata
from search.models import TextStats
from search.services import text_stats_refresh
from workspaces.models import Workspace
from workspaces.tenancy import workspace_scope

ACTOR = "system:bench_search"
MAX_CHUNKS = 5_000_000
TARGETS = {"filter_only_p95_ms": 100, "hybrid_p50_ms": 40, "hybrid_p95_ms": 150}


@dataclass(frozen=True)
class SearchBenchOptions:
    contracts: int
    chunks_per_contract: int
    queries: int
    seed: int
    keep: bool
    reuse: bool
    maintenance_work_mem: str


def run_search_bench(options: SearchBenchOptions, reporter: Reporter) -> dict[str, Any]:
    """Generate (or reuse) the seeded room, rebuild its indexes, time the search code.

    The result is the ``bench_search --json`` object. Raises :class:`BenchRefused` when
    the room's workspace exists and ``reuse`` is off.
    """
    encoder, plan, slug = open_room(
        "bench-search",
        contracts=options.contracts,
        chunks_per_contract=options.chunks_per_contract,
        seed=options.seed,
    )
    workspace, reused = _workspace(slug, plan, reuse=options.reuse, reporter=reporter)
    try:
        generate_s, index_build_s = _prepare(
            workspace, plan, encoder, reused, options.maintenance_work_mem, reporter
        )
        latency, slowest = measure(workspace, options.queries, options.seed, reporter.note)
        plan_explained = explain(workspace, slowest)
    finally:
        bench_workspace_release(workspace, keep=options.keep or options.reuse, note=reporter.note)
    hybrid, filter_only = latency["hybrid"], latency["filter_only"]
    return {
        "contracts": options.contracts,
        "chunks": plan.chunks,
        "dimension": encoder.dimension,
        "model": encoder.name,
        "device": encoder.device,
        "workspace": slug,
        "reused": reused,
        "queries": options.queries,
        "cpus": os.cpu_count() or 0,
        "generate_s": generate_s,
        "index_build_s": index_build_s,
        "latency_ms": latency,
        "targets": {
            **TARGETS,
            "met": {
                "filter_only_p95": filter_only["p95"] <= TARGETS["filter_only_p95_ms"],
                "hybrid_p50": hybrid["p50"] <= TARGETS["hybrid_p50_ms"],
                "hybrid_p95": hybrid["p95"] <= TARGETS["hybrid_p95_ms"],
            },
        },
        "explain": plan_explained,
    }


def open_room(
    prefix: str, *, contracts: int, chunks_per_contract: int, seed: int
) -> tuple[Encoder, Plan, str]:
    """The warmed-up encoder, the seeded room's plan and its workspace slug (``prefix-NxM-S``)."""
    encoder = get_encoder()
    encoder.encode(["warm-up: limitation de responsabilité"])
    plan = plan_data_room(contracts=contracts, chunks_per_contract=chunks_per_contract, seed=seed)
    return encoder, plan, f"{prefix}-{contracts}x{chunks_per_contract}-{seed}"


def _workspace(slug: str, plan: Plan, *, reuse: bool, reporter: Reporter) -> tuple[Workspace, bool]:
    """The benchmark's workspace, and whether it already holds the whole plan."""
    firm, existing = bench_workspace_find(slug)
    if existing is None:
        workspace, _ = bench_workspace_create(firm=firm, slug=slug, actor=ACTOR)
        return workspace, False
    if not reuse:
        raise BenchRefused(
            f"Workspace {slug!r} already exists in {BENCH_FIRM!r}; run with --reuse "
            "(reused if complete, regenerated otherwise)."
        )
    if complete(workspace=existing, plan=plan):
        reporter.note(f"Reusing workspace {slug}.")
        return existing, True
    # A run interrupted mid-way: start its contents again from scratch.
    workspace_contents_delete(workspace=existing)
    return existing, False


def _prepare(
    workspace: Workspace,
    plan: Plan,
    encoder: Encoder,
    reused: bool,
    maintenance_work_mem: str,
    reporter: Reporter,
) -> tuple[float | None, dict[str, Any]]:
    """Generate (unless reused) with the shared indexes dropped, then rebuild them, timed."""
    if reused:
        built: dict[str, Any] = {"gin": None, "hnsw": None, "skipped": "reused workspace"}
        with workspace_scope(workspace):
            computed = TextStats.objects.filter(workspace=workspace).exists()
        if not computed:
            built["text_stats"] = _text_stats(workspace)  # runs kept by older code
        return None, built
    indexes = SharedIndexes(encoder.dimension)
    # Loading into indexed tables costs far more than building the indexes afterwards.
    indexes.drop()
    try:
        generate_s = _generate(workspace, plan, encoder, reporter)
        reporter.note(f"Generated in {generate_s} s; building indexes...")
        workers = max(0, min(7, (os.cpu_count() or 1) - 1))
        index_build_s: dict[str, Any] = indexes.rebuild(
            maintenance_work_mem=maintenance_work_mem, workers=workers
        )
    finally:
        indexes.restore()
    # BM25 statistics, as ingestion computes them after each batch.
    index_build_s["text_stats"] = _text_stats(workspace)
    reporter.note(f"Indexes built: {index_build_s}")
    return generate_s, index_build_s


def _generate(workspace: Workspace, plan: Plan, encoder: Encoder, reporter: Reporter) -> float:
    """Write the planned room (metadata, then chunks); seconds taken."""
    started = time.perf_counter()
    topics = make_topics(plan.seed)
    centroids = topic_centroids(topics, encoder.encode)
    reporter.note(f"Topic centroids embedded in {time.perf_counter() - started:.1f} s")
    with workspace_scope(workspace):
        reporter.note(f"Generating {plan.contracts} contracts, {plan.chunks} chunks...")
        document_ids = write_metadata(workspace=workspace, plan=plan)
        reporter.note(f"Contracts and parties written at {time.perf_counter() - started:.1f} s")
        write_chunks(
            workspace=workspace,
            plan=plan,
            document_ids=document_ids,
            centroids=centroids,
            topics=topics,
            model=encoder.name,
            # Every 15 s at most, and at the end: a line per batch is noise.
            progress=reporter.progress(every_s=15, started=started),
        )
    return round(time.perf_counter() - started, 2)


def _text_stats(workspace: Workspace) -> float:
    started = time.perf_counter()
    with workspace_scope(workspace):
        text_stats_refresh(workspace_id=workspace.pk)
    return round(time.perf_counter() - started, 2)
