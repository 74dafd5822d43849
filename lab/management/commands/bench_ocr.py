"""bench_ocr [--pages N] [--json]: OCR speed and quality on a scan made here (lab: documents)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from lab.documents.bench import BenchRefused, run_ocr_bench
from lab.report import MeasurementCommand


class Command(MeasurementCommand):
    help = "Benchmark OCR (ocrmypdf + Tesseract fra+eng) on a scanned PDF generated here."
    refusals = (BenchRefused,)

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument("--pages", type=int, default=10, help="Pages to OCR (default 10).")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["pages"] < 1:
            raise BenchRefused("--pages must be 1 or more.")
        result = run_ocr_bench(pages=options["pages"])
        self.emit(result, as_json=options["json"], lines=_lines)


def _lines(result: dict[str, Any]) -> list[str]:
    return [
        f"{result['pages']} pages in {result['seconds']} s: {result['pages_per_second']} pages/s",
        f"mean confidence {result['mean_confidence']}, words found {result['words_found']:.1%}",
        f"engine: {result['engine']}",
    ]
