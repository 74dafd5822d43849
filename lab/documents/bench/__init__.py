"""The ingestion benchmark behind ``manage.py bench_ingest``, and the throwaway bench
workspaces every benchmark uses (lab.search.bench too). Runtime code never imports this package."""

from __future__ import annotations

from lab.documents.bench._ingest import IngestBenchOptions, run_ingest_bench, source_files
from lab.documents.bench._ocr import run_ocr_bench
from lab.documents.bench._workspace import (
    BENCH_EMAIL,
    BENCH_FIRM,
    BenchRefused,
    bench_workspace_create,
    bench_workspace_find,
    bench_workspace_release,
)

__all__ = [
    "BENCH_EMAIL",
    "BENCH_FIRM",
    "BenchRefused",
    "IngestBenchOptions",
    "bench_workspace_create",
    "bench_workspace_find",
    "bench_workspace_release",
    "run_ingest_bench",
    "run_ocr_bench",
    "source_files",
]
