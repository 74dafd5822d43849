"""eval_compliance --suite brenalis [--data-dir D] [--json]

The Brenalis suite (compliance/evals/brenalis.py): the expected flags found, with their
articles. The CUAD and French-clauses suites of issue #15 are not built yet.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from compliance.evals import brenalis
from search.evals.suites import EvalOptions, default_data_dir


class Command(BaseCommand):
    help = "Measure playbook checks on a shared data room (brenalis)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--suite", choices=["brenalis"], default="brenalis")
        parser.add_argument("--data-dir", type=Path, default=None)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        report = brenalis.run(EvalOptions(data_dir=options["data_dir"] or default_data_dir()))
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
            return
        self.stdout.write(f"{report['found']}/{report['expected']} expected flags found")
        for check in report["checks"]:
            mark = "ok" if check["found"] else "MISSING"
            self.stdout.write(f"  {mark} {check['contract']} {check['rule']} {check['cited']}")
