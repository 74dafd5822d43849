"""bench_ui --contracts N [--requests R] [--chunks-per-contract M] [--seed S] [--json] ...

Times the HTML pages with the Django test client, signed in, on the seeded synthetic room of
bench_search: the search page (filters only, and with a query) beside search_data_room alone
on the same arguments, the viewer (opened at a cited article, and at the top) and the
documents page. Run it on a dedicated data directory, as bench_search: building the room
drops and rebuilds the shared search indexes.
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
from lab.search.bench import UiBenchOptions, run_ui_bench


class Command(ModelCommand, MeasurementCommand):
    help = "Benchmark the search page, the viewer and the documents page (server time)."
    refusals = (BenchRefused,)

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument("--contracts", type=int, default=500, help="Contracts (N).")
        parser.add_argument(
            "--chunks-per-contract", type=int, default=8, help="Chunks per contract (M)."
        )
        parser.add_argument("--requests", type=int, default=100, help="Requests per page.")
        parser.add_argument("--seed", type=int, default=42, help="Seed of everything generated.")
        parser.add_argument("--keep", action="store_true", help="Keep the workspace afterwards.")
        parser.add_argument(
            "--reuse", action="store_true", help="Reuse the room of the same N, M and seed."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if min(options["contracts"], options["chunks_per_contract"], options["requests"]) <= 0:
            raise CommandError("--contracts, --chunks-per-contract and --requests must be > 0.")
        bench_options = UiBenchOptions(
            contracts=options["contracts"],
            chunks_per_contract=options["chunks_per_contract"],
            requests=options["requests"],
            seed=options["seed"],
            keep=options["keep"],
            reuse=options["reuse"],
        )
        # The index drops and builds need the tables' owner (the app role owns none).
        with as_table_owner(connection):
            result = run_ui_bench(bench_options, self)
        self.emit(result, as_json=options["json"], lines=result_lines)


def result_lines(result: dict[str, Any]) -> Iterator[str]:
    yield (
        f"{result['contracts']} contracts, {result['chunks']} chunks, "
        f"{result['requests']} requests per page"
    )
    for name, summary in result["latency_ms"].items():
        yield f"  {name:<24} p50 {summary['p50']:>8.1f}  p95 {summary['p95']:>8.1f} ms"
    yield f"Search page overhead (p95): {result['search_page_overhead_p95_ms']}"
    yield f"Targets met: {result['targets']['met']}"
