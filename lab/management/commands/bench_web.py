"""``bench_web``: signed-in users browsing the pages on a live server (see lab.agents.bench.web)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from lab.agents.bench.web import run
from lab.report import MeasurementCommand


class Command(MeasurementCommand):
    help = "Load-test the web pages with signed-in users on loopback (open loop)."

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument("--users", type=int, default=20)
        parser.add_argument("--seconds", type=float, default=60)
        parser.add_argument("--rate", type=float, default=1.0, help="Pages per second per user.")
        parser.add_argument("--workers", type=int, default=2, help="uvicorn processes.")
        parser.add_argument("--workspace", help="Slug of an indexed room (else Brenalis).")
        parser.add_argument("--user", help="Member to browse as (default: the room's owner).")

    def handle(self, *args: Any, **options: Any) -> None:
        self.emit(run(options, self.note), as_json=options["json"])
