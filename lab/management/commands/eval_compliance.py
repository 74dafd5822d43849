"""eval_compliance --suite brenalis|cuad|ana-fr [--limit N] [--reindex] [--data-dir D] [--json]

brenalis (compliance/evals/brenalis.py): the expected flags found, with their articles.
cuad (compliance/evals/cuad.py): per clause type, "the contract has such a clause" against
CUAD's annotations on the contracts the classifier was not trained on; ``--limit N`` indexes
and scores only the first N of them (in a workspace of their own).
ana-fr (compliance/evals/ana_fr.py): clause type and valid/invalid accuracy on the French
IT-services clauses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lab.compliance.evals import CuadMissing, ana_fr, brenalis, cuad
from lab.search.evals.suites import EvalOptions, default_data_dir


class Command(BaseCommand):
    help = "Measure playbook checks on a shared data set (brenalis, cuad, ana-fr)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--suite", choices=["brenalis", "cuad", "ana-fr"], default="brenalis")
        parser.add_argument("--data-dir", type=Path, default=None)
        parser.add_argument("--limit", type=int, default=None, help="cuad: N held-out contracts")
        parser.add_argument("--reindex", action="store_true")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        data_dir = options["data_dir"] or default_data_dir()
        if options["suite"] == "ana-fr":
            self._plain(ana_fr.run(data_dir), as_json=options["json"])
            return
        if options["suite"] == "cuad":
            try:
                report = cuad.run(
                    data_dir=data_dir, limit=options["limit"], reindex=options["reindex"]
                )
            except CuadMissing as exc:
                raise CommandError(str(exc)) from exc
            self._cuad(report, as_json=options["json"])
            return
        report = brenalis.run(EvalOptions(data_dir=data_dir, reindex=options["reindex"]))
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
            return
        self.stdout.write(f"{report['found']}/{report['expected']} expected flags found")
        for check in report["checks"]:
            mark = "ok" if check["found"] else "MISSING"
            self.stdout.write(f"  {mark} {check['contract']} {check['rule']} {check['cited']}")

    def _plain(self, report: dict[str, Any], *, as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
            return
        for key, value in report.items():
            if key != "rows":
                self.stdout.write(f"{key}: {value}")

    def _cuad(self, report: dict[str, Any], *, as_json: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
            return
        macro = report["macro"]
        self.stdout.write(
            f"{report['contracts_scored']} held-out contracts, macro P {macro['precision']:.3f}"
            f" R {macro['recall']:.3f} F1 {macro['f1']:.3f} (target {report['target_macro_f1']}:"
            f" {'met' if report['target_met'] else 'not met'}); cited chunk holds the"
            f" annotation: {report['cited_contains_annotation']:.3f}"
        )
        for row in report["categories"]:
            self.stdout.write(
                f"  {row['type']:<40} P {row['precision']:.2f} R {row['recall']:.2f}"
                f" F1 {row['f1']:.2f} ({row['positives']} positives)"
            )
