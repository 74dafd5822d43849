"""bench_legal [--json]: import, lookup and search timings of the legal library on this CPU.

The import is rolled back at the end (see ``lab.sources.bench``): the stored library is untouched.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from documents.management.model_command import ModelCommand
from lab.report import MeasurementCommand
from lab.sources.bench import run_bench
from lab.sources.evals.lookup import SuiteUnavailable, default_data_dir


class Command(ModelCommand, MeasurementCommand):
    help = "Benchmark the legal library: import of fr-codes, article_get, search_articles."
    refusals = (SuiteUnavailable,)

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--data-dir", type=Path, help="Shared data folder (default: ../shared/data)."
        )
        parser.add_argument("--queries", type=int, default=200, help="Lookups and searches.")
        parser.add_argument("--no-embed", action="store_true", help="Do not time embeddings.")
        parser.add_argument(
            "--embed-sample",
            type=int,
            help="Embed N random articles and extrapolate to all (reported as extrapolated).",
        )
        parser.add_argument(
            "--no-import", action="store_true", help="Only the lookup and search latencies."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        data_dir: Path = options["data_dir"] or default_data_dir()
        if not data_dir.is_dir():
            raise CommandError(f"{data_dir}: no such data folder (pass --data-dir).")
        if options["queries"] < 1:
            raise CommandError("--queries must be at least 1.")
        if options["embed_sample"] is not None and options["embed_sample"] < 1:
            raise CommandError("--embed-sample must be at least 1.")
        result = run_bench(
            data_dir,
            queries=options["queries"],
            embed=not options["no_embed"],
            embed_sample=options["embed_sample"],
            import_codes=not options["no_import"],
            note=self.note,
        )
        self.emit(result, as_json=options["json"], lines=report_lines)


def report_lines(result: dict[str, Any]) -> Iterator[str]:
    facts = result["machine"]
    yield f"{facts['cpu_model']} ({facts['cpus']} CPUs), model {result['embedding_model']}"
    imported = result.get("import")
    if imported:
        yield (
            f"import: {imported['articles']} articles, {imported['versions']} versions, "
            f"{imported['renvois']} renvois in {imported['seconds']} s "
            f"({imported['versions_per_s']} versions/s)"
        )
    embed = result.get("embed")
    if embed:
        how = "extrapolated from a sample" if embed["extrapolated"] else "measured"
        yield f"embeddings: {embed['versions_per_s']} versions/s, {embed['seconds']} s ({how})"
    for name in ("get_article", "search_legal_codes"):
        row = result[name]
        yield (
            f"{name}: p50 {row['p50_ms']} ms, p95 {row['p95_ms']} ms, max {row['max_ms']} ms "
            f"(target p95 <= {row['target_p95_ms']} ms: {'ok' if row['ok'] else 'MISSED'})"
        )
    yield f"first search (model load): {result['search_legal_codes']['first_query_ms']} ms"
    yield f"peak RSS {result['peak_rss_mb']} MB"
