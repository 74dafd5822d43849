"""eval_legal --suite renvois|datafiller|lookup|legirag [--json]: the legal library, measured.

A harness: it reports and exits 0 (the floors are enforced by tests); a missing data folder
or code is one CommandError line saying which ``import_legal_codes`` command to run.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from documents.management.model_command import ModelCommand
from lab.report import MeasurementCommand
from lab.sources.evals.lookup import SuiteUnavailable, default_data_dir
from sources.ranking import MODES

SUITES = ("renvois", "datafiller", "lookup", "legirag")


def run_renvois(data_dir: Path) -> dict[str, Any]:
    legi = data_dir / "legi-data"
    if not legi.is_dir():
        raise SuiteUnavailable(f"{legi} is not available (pass --data-dir).")
    try:
        # Written elsewhere and merged later: looked up at run time so the other suites (and
        # mypy) work with or without it.
        module = importlib.import_module("lab.sources.evals.renvois")
    except ImportError as exc:
        raise SuiteUnavailable(f"the renvois suite is not available yet ({exc}).") from exc
    result: dict[str, Any] = module.run_renvois_eval(legi)
    return result


class Command(ModelCommand, MeasurementCommand):
    help = "Measure the legal library: renvois, DataFiller search, lookups, Legirag questions."
    refusals = (SuiteUnavailable,)

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument("--suite", required=True, choices=SUITES)
        parser.add_argument(
            "--data-dir", type=Path, help="Shared data folder (default: ../shared/data)."
        )
        parser.add_argument(
            "--mode",
            action="append",
            choices=MODES,
            help="datafiller: the search modes to score (repeatable; default all); "
            "legirag: the one mode (default hybrid).",
        )
        parser.add_argument("--code", action="append", default=[], help="lookup: only this code.")
        parser.add_argument("--limit-queries", type=int, help="datafiller: the first N queries.")
        parser.add_argument(
            "--every", type=int, default=1, help="datafiller: every Nth query (quick runs)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        data_dir: Path = options["data_dir"] or default_data_dir()
        if not data_dir.is_dir():
            raise CommandError(f"{data_dir}: no such data folder (pass --data-dir).")
        if options["limit_queries"] is not None and options["limit_queries"] < 1:
            raise CommandError("--limit-queries must be at least 1.")
        if options["every"] < 1:
            raise CommandError("--every must be at least 1.")
        report = self._run(options["suite"], data_dir, options)
        self.emit(report, as_json=options["json"], lines=report_lines)

    def _run(self, suite: str, data_dir: Path, options: dict[str, Any]) -> dict[str, Any]:
        modes: list[str] = options["mode"] or []
        if suite == "renvois":
            return run_renvois(data_dir)
        if suite == "lookup":
            from lab.sources.evals.lookup import imported_codes, run_lookup

            return run_lookup(imported_codes(data_dir, options["code"]))
        if suite == "datafiller":
            from lab.sources.evals.datafiller import run_datafiller

            return run_datafiller(
                data_dir,
                modes=modes or MODES,
                limit_queries=options["limit_queries"],
                every=options["every"],
                progress=self.progress(every_s=30.0),
            )
        from lab.sources.evals.legirag import run_legirag

        if len(modes) > 1:
            raise CommandError("legirag scores one --mode at a time.")
        return run_legirag(data_dir, mode=modes[0] if modes else "hybrid")


def report_lines(report: dict[str, Any]) -> Iterator[str]:
    suite = report.get("suite")
    if suite == "datafiller":
        yield from _datafiller_lines(report)
    elif suite == "lookup":
        yield from _lookup_lines(report)
    elif suite == "legirag":
        yield from _legirag_lines(report)
    else:
        yield from (f"{key}: {value}" for key, value in report.items())


def _datafiller_lines(report: dict[str, Any]) -> Iterator[str]:
    embedding = report["embedding"]
    yield (
        f"datafiller: {report['queries']} queries (every {report['every']}), "
        f"{report['groups']} groups, "
        f"{report['relevant_articles']} relevant articles, {report['unresolved_refs']} refs "
        f"not in the imported code; {report['code']} as of {report['as_of']}"
    )
    yield (
        f"model {embedding['model']} ({embedding['embedded']}/{embedding['in_force']} "
        "articles embedded)"
    )
    yield f"  {'arm':8} {'R@1':>7} {'R@5':>7} {'R@10':>7} {'hit@10':>7} {'MRR@10':>7} {'ms/q':>7}"
    for arm, row in report["arms"].items():
        cells = " ".join(f"{row[m]:7.4f}" for m in ("R@1", "R@5", "R@10", "hit@10", "MRR@10"))
        yield f"  {arm:8} {cells} {row['ms_per_query']:7.1f}"
    readme = report["reference_readme_bm25"]
    yield (
        f"README bm25s: R@10 {readme['R@10']}, MRR@10 {readme['MRR@10']} over "
        f"{readme['queries']} queries; target R@10 >= {report['target']['R@10']}"
    )
    yield from (f"  - {note}" for note in report["notes"])


def _lookup_lines(report: dict[str, Any]) -> Iterator[str]:
    for slug, row in report["codes"].items():
        ambiguous = ", ".join(row["ambiguous_numbers"]) or "-"
        yield (
            f"  {slug:55} {row['found']:6}/{row['asked']:<6} {100 * row['found_share']:6.2f} %"
            f"  (as of {row['as_of']}; two versions in force: {ambiguous})"
        )
    yield f"lookup: {report['found']}/{report['asked']} found ({100 * report['found_share']:.2f} %)"
    for failure in report["failures"]:
        yield f"  FAIL {failure['code']} {failure['asked']!r}: {failure['error']}"


def _legirag_lines(report: dict[str, Any]) -> Iterator[str]:
    yield f"legirag ({report['mode']}): {report['questions']} questions"
    for row in report["per_category"]:
        shown = ", ".join(
            f"{m} {row[m]} (over {row[m + '_over']})"
            for m in ("article@10", "code@1", "excluded_absent@10")
            if m in row
        )
        extra = row["abstention"] or f"{row['not_imported']} expected in codes not imported"
        yield f"  {row['category']:20} {shown or '-'}; {extra}; baseline {row['baseline']}"
    yield (
        f"routing article@10 {report['routing_article@10']}, code@1 {report['routing_code@1']}; "
        f"renvoi coverage {report['renvoi_coverage_mean']} (graph {report['renvoi_graph']}); "
        f"baseline {report['baseline_overall']}, "
        f"crossRefCoverageMean {report['baseline_crossRefCoverageMean']}"
    )
    yield from (f"  - {note}" for note in report["notes"])
