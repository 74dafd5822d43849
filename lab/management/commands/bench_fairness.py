"""``bench_fairness``: firm B's latency alone and under firm A's abuse (see
:mod:`lab.agents.bench.fairness`)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from lab.agents.bench.fairness import run
from lab.report import MeasurementCommand


class Command(MeasurementCommand):
    help = "Measure whether one firm's abuse moves another firm's latency (live server)."

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument("--seconds", type=float, default=30, help="Each phase's length.")
        parser.add_argument("--clients", type=int, default=3, help="Firm B's users.")
        parser.add_argument("--streams", type=int, default=120, help="A's live streams.")
        parser.add_argument("--pdfs", type=int, default=4, help="A's slow PDFs.")
        parser.add_argument("--case-law", type=int, default=16, help="A's parallel searches.")
        parser.add_argument("--workers", type=int, default=2, help="uvicorn processes.")
        parser.add_argument(
            "--keep", action="store_true", help="Keep the two throwaway firms (to inspect)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        self.emit(run(options, self.note), as_json=options["json"])
