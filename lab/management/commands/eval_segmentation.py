"""eval_segmentation [--suite cuad|brenalis] [--cuad DIR] [--brenalis FILE] [--limit N] [--json]:
how contracts are cut into articles by the product's parser and chunker
(lab.documents.evals). No database and no embeddings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from lab.documents.evals import (
    BrenalisMissing,
    CuadMissing,
    default_brenalis_file,
    default_cuad_dir,
    evaluate_brenalis_segmentation,
    evaluate_cuad_segmentation,
)
from lab.report import MeasurementCommand


class Command(MeasurementCommand):
    help = (
        "Measure how contracts are cut into articles: the share of contracts with more than "
        "half of their text before the first article, and articles per contract."
    )
    # Pure text functions: no database, so no system checks that would start Postgres.
    requires_system_checks: list[str] = []
    refusals = (CuadMissing, BrenalisMissing)

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--suite",
            choices=("cuad", "brenalis"),
            default="cuad",
            help="cuad: CUAD's 510 contracts (default); brenalis: the Brenalis contracts as "
            "text, as PDFs, and as PDFs with running headers and footers.",
        )
        parser.add_argument(
            "--cuad",
            type=Path,
            default=None,
            help="CUAD folder with full_contract_txt/ (default: ../shared/data/cuad).",
        )
        parser.add_argument(
            "--brenalis",
            type=Path,
            default=None,
            help="Brenalis data-room JSON (default: "
            "../shared/data/dataroom-brenalis/exemple_data_room.json).",
        )
        parser.add_argument(
            "--limit", type=int, default=0, help="CUAD: the first N contracts (0 = all)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["limit"] < 0:
            raise CommandError("--limit must be 0 (all) or a positive number.")
        if options["suite"] == "brenalis":
            path: Path = options["brenalis"] or default_brenalis_file()
            result = evaluate_brenalis_segmentation(path, progress=self.progress())
            self.emit(result, as_json=options["json"], lines=brenalis_lines)
            return
        cuad: Path = options["cuad"] or default_cuad_dir()
        result = evaluate_cuad_segmentation(cuad, limit=options["limit"], progress=self.progress())
        self.emit(result, as_json=options["json"], lines=cuad_lines)


def _summary_lines(label: str, summary: dict[str, Any]) -> Iterator[str]:
    over, articles = summary["first_chunk_over_half"], summary["articles_per_contract"]
    yield (
        f"{label}: {summary['contracts']} contracts, {over['count']} ({over['share']:.1%}) with "
        f"more than half of their text before the first article, {summary['without_article']} "
        f"without any; articles per contract median {articles['median']}, "
        f"p10 {articles['p10']}, p90 {articles['p90']}"
    )


def cuad_lines(result: dict[str, Any]) -> Iterator[str]:
    """The summary, then the contracts with the largest preamble."""
    yield from _summary_lines("CUAD", result)
    for worst in result["worst"]:
        yield (
            f"  {worst['first_share']:>4.0%} before the first article, "
            f"{worst['articles']:>2} articles: {worst['name']}"
        )
    yield f"  {result['seconds']} s"


def brenalis_lines(result: dict[str, Any]) -> Iterator[str]:
    """Per form (text, PDF, PDF with running lines): the summary and the articles as written."""
    for form, summary in result["forms"].items():
        yield from _summary_lines(f"Brenalis {form}", summary)
        yield (
            f"  articles as written: {summary['articles_as_written']}/{summary['contracts']}, "
            f"running header and footer lines left in the text: {summary['running_lines_left']}"
        )
    for row in result["differing"]:
        yield f"  {row['form']} {row['name']}: written {row['written']}, found {row['found']}"
