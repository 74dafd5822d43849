"""bench_search --contracts N --chunks-per-contract M [--queries Q] [--seed S] [--json] ...

Generates a seeded synthetic data room (lab.search.bench), rebuilds the shared full-text and HNSW
indexes (timed), then measures the real search code, each call in its own tenant-scope
transaction as a request would run it: filter-only listing, the full-text and vector arms
alone, hybrid search with and without filters, and reranking when its model is available
offline. Run it on a dedicated data directory: the indexes it drops and rebuilds are shared by
every workspace of the database.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.db import connection

from core.db_backend.roles import as_table_owner
from documents.management.model_command import ModelCommand
from lab.documents.bench import BenchRefused
from lab.report import MeasurementCommand
from lab.search.bench import MAX_CHUNKS, SearchBenchOptions, run_search_bench


class Command(ModelCommand, MeasurementCommand):
    help = "Benchmark search latency and index builds on a seeded synthetic data room."
    refusals = (BenchRefused,)

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument("--contracts", type=int, required=True, help="Contracts (N).")
        parser.add_argument(
            "--chunks-per-contract", type=int, required=True, help="Chunks per contract (M)."
        )
        parser.add_argument("--queries", type=int, default=200, help="Queries per measurement.")
        parser.add_argument("--seed", type=int, default=42, help="Seed of everything generated.")
        parser.add_argument("--keep", action="store_true", help="Keep the workspace afterwards.")
        parser.add_argument(
            "--reuse",
            action="store_true",
            help="Reuse the workspace of the same N, M and seed if complete (and keep it).",
        )
        parser.add_argument(
            "--maintenance-work-mem",
            default="2GB",
            help="maintenance_work_mem for the index builds (the HNSW graph should fit).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        contracts, per_contract = options["contracts"], options["chunks_per_contract"]
        if contracts <= 0 or per_contract <= 0:
            raise CommandError("--contracts and --chunks-per-contract must be positive numbers.")
        if contracts * per_contract > MAX_CHUNKS:
            raise CommandError(
                f"{contracts} x {per_contract} = {contracts * per_contract} chunks is more than "
                f"the {MAX_CHUNKS} this benchmark generates; lower --contracts or "
                "--chunks-per-contract."
            )
        if options["queries"] <= 0:
            raise CommandError("--queries must be a positive number.")
        bench_options = SearchBenchOptions(
            contracts=contracts,
            chunks_per_contract=per_contract,
            queries=options["queries"],
            seed=options["seed"],
            keep=options["keep"],
            reuse=options["reuse"],
            maintenance_work_mem=options["maintenance_work_mem"],
        )
        # The index drops and builds need the tables' owner (the app role owns none).
        with as_table_owner(connection):
            result = run_search_bench(bench_options, self)
        self.emit(result, as_json=options["json"], lines=result_lines)


def result_lines(result: dict[str, Any]) -> Iterator[str]:
    """The human summary: sizes and builds, one line per measurement, targets, the plan."""
    yield (
        f"{result['contracts']} contracts, {result['chunks']} chunks, {result['model']} "
        f"(dim {result['dimension']}); generated in {result['generate_s']} s; index builds "
        f"{result['index_build_s']}"
    )
    for name, summary in result["latency_ms"].items():
        if "skipped" in summary:
            yield f"  {name:<16} skipped: {summary['skipped']}"
        else:
            yield (
                f"  {name:<16} p50 {summary['p50']:>8.1f}  p95 {summary['p95']:>8.1f}  "
                f"p99 {summary['p99']:>8.1f}  mean {summary['mean']:>8.1f} ms"
            )
    yield f"Targets met: {result['targets']['met']}"
    if result["explain"]:
        yield f"Slowest arm {result['explain']['arm']}:"
        for line in result["explain"].get("plan", []):
            yield f"  {line}"
