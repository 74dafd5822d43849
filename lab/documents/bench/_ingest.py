"""The ingestion benchmark behind ``manage.py bench_ingest``.

Ingests real files end to end in this process, in a throwaway workspace, on the configured
embedding model and device, and reports where the time goes: per-stage seconds (the
services' ``timed(...)`` blocks), throughput, and the raw encoder throughput measured in the
same run on the same chunks, so the pipeline's overhead over pure embedding is one ratio.
"""

from __future__ import annotations

import os
import resource
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.embeddings import Encoder, get_encoder
from core.metrics import stage_timings
from documents.models import Chunk, Document, DocumentStatus
from documents.pipeline import run_in_process, store_files
from lab.documents.bench._workspace import (
    BENCH_FIRM,
    BenchRefused,
    bench_workspace_create,
    bench_workspace_find,
    bench_workspace_release,
)
from lab.report import Reporter
from workspaces.models import User, Workspace
from workspaces.tenancy import workspace_scope

ACTOR = "system:bench"
RAW_SAMPLE_CHUNKS = 2000
# Targets for end-to-end chunks/s over raw encoder chunks/s. A GPU encoder is so fast that
# the fixed per-document work (parsing, SQL) weighs more, hence the lower bar there.
RATIO_MIN_CPU = 0.8
RATIO_MIN_GPU = 0.7
_WARMUP_TEXTS = [
    "ARTICLE 1 — OBJET. Le présent contrat a pour objet la fourniture de services.",
    "Section 12. Governing Law. This Agreement shall be governed by the laws of New York.",
    "The term of this Agreement is five (5) years from the Effective Date.",
    "Fait à Paris, en deux exemplaires originaux.",
] * 4


@dataclass(frozen=True)
class IngestBenchOptions:
    source: Path
    limit: int
    workspace: str | None
    keep: bool


@dataclass(frozen=True)
class _Run:
    """What one pipeline run left behind, before it is turned into rates and shares."""

    store_files_s: float
    wall_s: float
    totals: dict[str, float]
    loops: dict[str, float]
    documents: int
    failed: int
    chunks: int
    sample: list[str]


def run_ingest_bench(options: IngestBenchOptions, reporter: Reporter) -> dict[str, Any]:
    """The ``bench_ingest --json`` object. Raises :class:`BenchRefused` on a bad source or
    a taken workspace slug."""
    files = source_files(options.source, options.limit)
    # Model loading is a one-off per process, not ingestion cost: load and warm up first.
    started = time.perf_counter()
    encoder = get_encoder()
    encoder.encode(_WARMUP_TEXTS)
    model_load_s = time.perf_counter() - started
    reporter.note(f"Encoder {encoder.name} on {encoder.device} ready in {model_load_s:.1f} s")

    workspace, user = _workspace(options.workspace or f"bench-{int(time.time())}")
    try:
        run = _ingest(workspace, user, files, reporter)
        raw_chunks_per_s = _raw_encoder_rate(encoder, run.sample, reporter)
    finally:
        bench_workspace_release(workspace, keep=options.keep, note=reporter.note)
    result = {
        "source": str(options.source),
        **_rates(run, raw_chunks_per_s, encoder),
        "model_load_s": round(model_load_s, 2),
    }
    return _environment(result, encoder)


def source_files(source: Path, limit: int) -> list[Path]:
    """The files to ingest: the first ``limit`` by name (all when 0), hidden ones skipped."""
    if limit < 0:
        raise BenchRefused("--limit must be 0 (all) or a positive number.")
    if not source.is_dir():
        raise BenchRefused(f"--source {source}: no such folder.")
    files = sorted(
        (p for p in source.iterdir() if p.is_file() and not p.name.startswith(".")),
        key=lambda p: p.name,
    )
    if not files:
        raise BenchRefused(f"--source {source}: the folder has no files.")
    return files[:limit] if limit else files


def _workspace(slug: str) -> tuple[Workspace, User]:
    firm, existing = bench_workspace_find(slug)
    if existing is not None:
        # It would be reused (documents already present, not re-measured) and then deleted.
        raise BenchRefused(
            f"Workspace {slug!r} already exists in {BENCH_FIRM!r}; pick another slug."
        )
    return bench_workspace_create(firm=firm, slug=slug, actor=ACTOR)


def _ingest(workspace: Workspace, user: User, files: list[Path], reporter: Reporter) -> _Run:
    reporter.note(f"Storing {len(files)} files in workspace {workspace.slug}...")
    started = time.perf_counter()
    batch, results = store_files(workspace=workspace, paths=files, user=user)
    store_files_s = time.perf_counter() - started

    started = time.perf_counter()
    with stage_timings() as totals:
        loops = run_in_process(workspace=workspace, batch=batch, progress=reporter.progress())
    wall_s = store_files_s + time.perf_counter() - started

    with workspace_scope(workspace):
        in_batch = Document.objects.filter(pk__in=batch.document_ids)
        documents = in_batch.count()
        failed = in_batch.filter(status=DocumentStatus.FAILED).count()
        chunks = Chunk.objects.filter(workspace=workspace)
        chunk_count = chunks.count()
        ids = list(chunks.order_by("document_id", "ordinal").values_list("pk", flat=True))
        # Spread the sample over the whole run: chunk lengths vary from one contract to
        # the next, and the encoder's speed with them.
        sample_ids = ids[:: max(1, len(ids) // RAW_SAMPLE_CHUNKS)][:RAW_SAMPLE_CHUNKS]
        sample = list(
            Chunk.objects.filter(pk__in=sample_ids)
            .order_by("document_id", "ordinal")
            .values_list("index_text", flat=True)
        )
    refused = sum(1 for r in results if r.error)
    return _Run(
        store_files_s, wall_s, dict(totals), loops, documents, failed + refused, chunk_count, sample
    )


def _raw_encoder_rate(encoder: Encoder, texts: list[str], reporter: Reporter) -> float:
    """Chunks per second of the encoder alone, on the run's own chunks."""
    if not texts:
        return 0.0
    reporter.note(f"Raw encoder: {len(texts)} chunks...")
    started = time.perf_counter()
    encoder.encode(texts)
    return len(texts) / (time.perf_counter() - started)


def _per_s(items: int, seconds: float) -> float:
    return round(items / seconds, 2) if seconds > 0 else 0.0


def _stages(run: _Run) -> dict[str, dict[str, float]]:
    """Seconds and share of the wall time per stage, with each stage's own rate."""
    totals, wall_s = run.totals, run.wall_s
    stage_seconds = {
        "store": run.store_files_s + totals.get("store", 0.0),
        "parse": totals.get("parse", 0.0),
        "metadata": totals.get("metadata", 0.0),
        "chunk": totals.get("chunk", 0.0),
        "embed": totals.get("embed", 0.0),
        "analyze": run.loops.get("analyze", 0.0),
    }
    # Transactions, row locks, the chunk queries of the embed loop, the vector index:
    # what no stage claims. Reported so the shares add up to the wall time.
    stage_seconds["other"] = max(0.0, wall_s - sum(stage_seconds.values()))
    stages: dict[str, dict[str, float]] = {
        name: {"s": round(seconds, 2), "share": round(seconds / wall_s, 4) if wall_s else 0.0}
        for name, seconds in stage_seconds.items()
    }
    stages["store"] |= {
        "files_s": round(run.store_files_s, 2),
        "db_writes_s": round(totals.get("store", 0.0), 2),
    }
    for name in ("parse", "metadata"):
        stages[name]["docs_per_s"] = _per_s(run.documents, stage_seconds[name])
    stages["chunk"]["chunks_per_s"] = _per_s(run.chunks, stage_seconds["chunk"])
    stages["embed"] |= {
        "chunks_per_s": _per_s(run.chunks, stage_seconds["embed"]),
        # The whole embed loop (queries, vector writes) against the encoder alone.
        "loop_s": round(run.loops.get("embed", 0.0), 2),
    }
    return stages


def _rates(run: _Run, raw_chunks_per_s: float, encoder: Encoder) -> dict[str, Any]:
    chunks_per_s = run.chunks / run.wall_s if run.wall_s else 0.0
    ratio = chunks_per_s / raw_chunks_per_s if raw_chunks_per_s else 0.0
    ratio_min = RATIO_MIN_CPU if encoder.device == "cpu" else RATIO_MIN_GPU
    return {
        "documents": run.documents,
        "failed": run.failed,
        "chunks": run.chunks,
        "wall_s": round(run.wall_s, 2),
        "docs_per_s": _per_s(run.documents, run.wall_s),
        "chunks_per_s": round(chunks_per_s, 2),
        "stages": _stages(run),
        "raw_encoder_chunks_per_s": round(raw_chunks_per_s, 2),
        "ratio": round(ratio, 4),
        "targets": {"ratio_min": ratio_min, "ratio_ok": ratio >= ratio_min},
    }


def _peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # Linux reports kilobytes, macOS bytes.
    return round(peak / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


def _environment(result: dict[str, Any], encoder: Encoder) -> dict[str, Any]:
    """The result in its published key order, with the model, device and memory peaks."""
    import torch

    cuda_mb = None
    if encoder.device.startswith("cuda"):
        cuda_mb = round(torch.cuda.max_memory_allocated() / (1024 * 1024), 1)
    ordered = {
        "source": result["source"],
        "documents": result["documents"],
        "failed": result["failed"],
        "chunks": result["chunks"],
        "device": encoder.device,
        "dtype": encoder.dtype,
        "model": encoder.name,
        "dimension": encoder.dimension,
        "batch_size": encoder.batch_size,
        "model_load_s": result["model_load_s"],
    }
    return (
        ordered
        | {key: value for key, value in result.items() if key not in ordered}
        | {
            "peak_rss_mb": _peak_rss_mb(),
            "cuda_max_allocated_mb": cuda_mb,
            "torch": str(torch.__version__),
            "cpus": os.cpu_count() or 0,
        }
    )
