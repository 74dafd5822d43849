"""bench_ingest --source DIR [--limit N] [--json] [--workspace SLUG] [--keep].

Ingests real files end to end in this process, in a throwaway workspace, and reports where
the time goes against the raw encoder's throughput (lab.documents.bench).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.core.management.base import CommandParser

from documents.management.model_command import ModelCommand
from lab.documents.bench import BenchRefused, IngestBenchOptions, run_ingest_bench
from lab.report import MeasurementCommand


class Command(ModelCommand, MeasurementCommand):
    help = "Benchmark ingestion end to end on a folder of files, in a throwaway workspace."
    refusals = (BenchRefused,)

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument("--source", type=Path, required=True, help="Folder of files.")
        parser.add_argument(
            "--limit",
            type=int,
            default=0,
            help="Ingest the first N files by name (0 = all).",
        )
        parser.add_argument(
            "--workspace", help="Slug of the throwaway workspace (default: bench-<unix time>)."
        )
        parser.add_argument(
            "--keep", action="store_true", help="Keep the workspace and its documents."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        bench_options = IngestBenchOptions(
            source=options["source"],
            limit=options["limit"],
            workspace=options["workspace"],
            keep=options["keep"],
        )
        result = run_ingest_bench(bench_options, self)
        self.emit(result, as_json=options["json"], lines=result_lines)


def result_lines(result: dict[str, Any]) -> Iterator[str]:
    """The human summary: counts, model, end-to-end rates, one line per stage, the ratio."""
    yield (
        f"{result['documents']} documents ({result['failed']} failed), {result['chunks']} "
        f"chunks from {result['source']}"
    )
    yield (
        f"Model {result['model']} on {result['device']} (dim {result['dimension']}, batch "
        f"{result['batch_size']}), loaded in {result['model_load_s']} s; torch "
        f"{result['torch']}, {result['cpus']} CPUs"
    )
    yield (
        f"End to end: {result['wall_s']} s, {result['docs_per_s']} docs/s, "
        f"{result['chunks_per_s']} chunks/s"
    )
    for name, stage in result["stages"].items():
        rates = ", ".join(
            f"{value} {key.removesuffix('_per_s')}/s"
            for key, value in stage.items()
            if key.endswith("_per_s")
        )
        yield f"  {name:<9} {stage['s']:>8.2f} s  {stage['share']:>6.1%}  {rates}"
    verdict = "ok" if result["targets"]["ratio_ok"] else "below target"
    yield (
        f"Raw encoder: {result['raw_encoder_chunks_per_s']} chunks/s; ratio "
        f"{result['ratio']} (target >= {result['targets']['ratio_min']}: {verdict})"
    )
    cuda = result["cuda_max_allocated_mb"]
    yield f"Peak RSS {result['peak_rss_mb']} MB" + (
        f", CUDA max allocated {cuda} MB" if cuda is not None else ""
    )
