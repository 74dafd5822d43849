"""eval_compliance --suite brenalis|ana-fr [--data-dir D] [--json]

brenalis (compliance/evals/brenalis.py): the expected flags found, with their articles.
ana-fr (compliance/evals/ana_fr.py): clause type and valid/invalid accuracy on the French
IT-services clauses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from compliance.evals import ana_fr, brenalis
from search.evals.suites import EvalOptions, default_data_dir


class Command(BaseCommand):
    help = "Measure playbook checks on a shared data room (brenalis)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--suite", choices=["brenalis", "ana-fr"], default="brenalis")
        parser.add_argument("--data-dir", type=Path, default=None)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        data_dir = options["data_dir"] or default_data_dir()
        if options["suite"] == "ana-fr":
            report = ana_fr.run(data_dir)
        else:
            report = brenalis.run(EvalOptions(data_dir=data_dir))
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
            return
        if options["suite"] == "ana-fr":
            for key, value in report.items():
                if key != "rows":
                    self.stdout.write(f"{key}: {value}")
            return
        self.stdout.write(f"{report['found']}/{report['expected']} expected flags found")
        for check in report["checks"]:
            mark = "ok" if check["found"] else "MISSING"
            self.stdout.write(f"  {mark} {check['contract']} {check['rule']} {check['cited']}")
