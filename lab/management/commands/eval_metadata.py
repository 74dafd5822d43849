"""eval_metadata [--suite cuad|brenalis-text] [--cuad DIR] [--brenalis FILE] [--limit N] [--json]:
our metadata extraction against CUAD's labels, or against the Brenalis data room's fields with
its contracts read from PDFs (lab.documents.evals). No database and no embeddings."""

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
    evaluate_brenalis_text,
    evaluate_cuad,
)
from lab.report import MeasurementCommand


class Command(MeasurementCommand):
    help = (
        "Measure metadata extraction (dates, type, parties, renewal, governing law) against "
        "CUAD's labels or the Brenalis data room read from PDFs."
    )
    # Pure text functions: no database, so no system checks that would start Postgres.
    requires_system_checks: list[str] = []
    refusals = (CuadMissing, BrenalisMissing)

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--suite",
            choices=("cuad", "brenalis-text"),
            default="cuad",
            help="cuad: CUAD's 510 contracts and labels (default); brenalis-text: the Brenalis "
            "contracts rendered as PDFs, scored against the data room's own fields.",
        )
        parser.add_argument(
            "--brenalis",
            type=Path,
            default=None,
            help="Brenalis data-room JSON (default: "
            "../shared/data/dataroom-brenalis/exemple_data_room.json).",
        )
        parser.add_argument(
            "--cuad",
            type=Path,
            default=None,
            help="CUAD folder with full_contract_txt/ and master_clauses.csv "
            "(default: ../shared/data/cuad).",
        )
        parser.add_argument(
            "--limit", type=int, default=0, help="Evaluate the first N contracts (0 = all)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["limit"] < 0:
            raise CommandError("--limit must be 0 (all) or a positive number.")
        if options["suite"] == "brenalis-text":
            path: Path = options["brenalis"] or default_brenalis_file()
            result = evaluate_brenalis_text(path, progress=self.progress())
            self.emit(result, as_json=options["json"], lines=brenalis_lines)
            return
        cuad: Path = options["cuad"] or default_cuad_dir()
        result = evaluate_cuad(cuad, limit=options["limit"], progress=self.progress())
        self.emit(result, as_json=options["json"], lines=result_lines)


def result_lines(result: dict[str, Any]) -> Iterator[str]:
    """The human summary: coverage, each field against its target, speed, then the most
    frequent causes of misses."""
    parties, law = result["parties"], result["governing_law"]
    yield (
        f"CUAD: {result['contracts']} contracts evaluated, {result['unmatched']} unmatched, "
        f"{result['seconds']} s"
    )
    for name, target in result["targets"].items():
        verdict = "met" if target["met"] else "NOT met"
        yield f"  {name:<18} {target['measured']:.1%} (target {target['target']:.0%}: {verdict})"
    yield (
        f"  effective date {result['effective_date']['accuracy']:.1%}, expiration strict "
        f"{result['expiration_date']['strict_accuracy']:.1%}, renewal present "
        f"{result['renewal_term_present']['accuracy']:.1%}"
    )
    yield (
        f"  parties: at least one {parties['at_least_one']:.1%}, recall {parties['recall']:.1%}, "
        f"precision {parties['precision']:.1%}; law: {law['unnormalisable_gold']} gold answers "
        f"outside the vocabulary, {law['false_positive']} found where CUAD has none"
    )
    timing = result["extraction_ms"]
    yield f"  extraction per contract: median {timing['median']} ms, p95 {timing['p95']} ms"
    for cause in result["errors_by_cause"]:
        yield f"  miss: {cause['cause']} ({cause['count']})"


def brenalis_lines(result: dict[str, Any]) -> Iterator[str]:
    """Accuracy per field, then the most frequent causes of misses."""
    yield (
        f"Brenalis read from PDFs: {result['contracts']} contracts, extraction median "
        f"{result['extraction_ms']['median']} ms, {result['seconds']} s"
    )
    for name, score in result["fields"].items():
        yield f"  {name:<15} {score['accuracy']:.1%} over {score['evaluated']}"
    for cause in result["errors_by_cause"]:
        yield f"  miss: {cause['cause']} ({cause['count']})"
