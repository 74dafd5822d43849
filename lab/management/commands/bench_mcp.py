"""``bench_mcp``: the MCP load test (see :mod:`lab.agents.bench.mcp`)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandParser

from lab.agents.bench.mcp import run
from lab.report import MeasurementCommand


class Command(MeasurementCommand):
    help = "Load-test the MCP endpoint on loopback and print latency percentiles."

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument("--clients", type=int, default=50)
        parser.add_argument("--seconds", type=float, default=60)
        parser.add_argument("--max-calls", type=int, default=200_000, help="Hard cap.")
        parser.add_argument("--workspace", help="Slug of an indexed room (else Brenalis).")
        parser.add_argument("--user", help="Member to call as (default: the room's owner).")
        parser.add_argument(
            "--tool", default="search_data_room", help="A tool, or 'mix' (a lawyer's session)."
        )
        parser.add_argument(
            "--rate",
            type=float,
            default=0.0,
            help="Calls per second per client, whatever the answers (open loop); 0: closed "
            "loop, each client calls again once answered (the saturation throughput).",
        )
        parser.add_argument("--port", type=int, default=0, help="0: a free port.")
        parser.add_argument("--workers", type=int, default=1, help="uvicorn processes.")

    def handle(self, *args: Any, **options: Any) -> None:
        self.emit(run(options, self.note), as_json=options["json"])
