"""bench_compliance [--limit N] [--data-dir D] [--json]

Scans the CUAD eval workspace (``eval_compliance --suite cuad``'s index, built first when
missing) with the default English playbook, twice: contracts per second, the share of time
in classification vs rule checks, and the encoder calls (the position rules' wordings, once).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lab.compliance.bench import run_compliance_bench
from lab.compliance.evals import CuadMissing
from lab.search.evals.suites import default_data_dir


class Command(BaseCommand):
    help = "Benchmark a playbook scan over the CUAD eval workspace (stored tags, embeddings)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--data-dir", type=Path, default=None)
        parser.add_argument("--limit", type=int, default=None, help="N held-out contracts")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            report = run_compliance_bench(
                data_dir=options["data_dir"] or default_data_dir(), limit=options["limit"]
            )
        except CuadMissing as exc:
            raise CommandError(str(exc)) from exc
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
            return
        for label in ("scan", "rescan"):
            run = report[label]
            self.stdout.write(
                f"{label}: {run['contracts']} contracts in {run['seconds']} s "
                f"({run['contracts_per_second']}/s), classify {run['classify_vs_rules']} "
                f"encoder calls {run['encoder_calls']}"
            )
