"""eval_search --suite NAME [--json]: search quality on the shared datasets, through the product.

Indexes the suite's corpus into its own workspace (reused on the next run), then measures
search_data_room (brenalis) or each rank_chunks arm against a bm25s reference (acord,
datafiller). A harness: it reports and exits 0; the tests in tests/search enforce floors.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from documents.management.model_command import ModelCommand
from lab.report import MeasurementCommand
from lab.search.evals import SUITES, DatasetMissing, EvalOptions, default_data_dir, run_suite


class Command(ModelCommand, MeasurementCommand):
    help = (
        "Measure search quality on a shared dataset (brenalis, acord, datafiller), or "
        "calibrate the relevance cut (acord-cut, on --split train)."
    )
    refusals = (DatasetMissing,)

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument("--suite", required=True, choices=sorted(SUITES))
        parser.add_argument(
            "--split",
            default="test",
            choices=["train", "valid", "test"],
            help="ACORD qrels split (tune on train/valid, report on test).",
        )
        parser.add_argument("--limit-queries", type=int, help="Only the first N queries.")
        parser.add_argument(
            "--max-corpus",
            type=int,
            help="Index at most N documents: all relevant to the queries, then the first others.",
        )
        parser.add_argument(
            "--oversample", type=int, default=200, help="Chunks per arm (rank_chunks, >= 100)."
        )
        parser.add_argument(
            "--reindex", action="store_true", help="Rebuild the suite's workspace index."
        )
        parser.add_argument(
            "--rerank",
            action="store_true",
            help="acord: also rank the hybrid arm through the reranker (LEXROOM_RERANKER: the "
            "cross-encoder or the LLM judge on Ollama), reported as the judged arm hybrid+rerank.",
        )
        parser.add_argument(
            "--data", type=Path, help="Shared data folder (default: ../shared/data)."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        for name in ("limit_queries", "max_corpus"):
            if options[name] is not None and options[name] < 1:
                raise CommandError(f"--{name.replace('_', '-')} must be at least 1.")
        if options["oversample"] < 100:
            raise CommandError("--oversample must be at least 100.")
        eval_options = EvalOptions(
            data_dir=options["data"] or default_data_dir(),
            split=options["split"],
            limit_queries=options["limit_queries"],
            max_corpus=options["max_corpus"],
            reindex=options["reindex"],
            oversample=options["oversample"],
            rerank=options["rerank"],
        )
        report = run_suite(options["suite"], eval_options, self)
        self.emit(report, as_json=options["json"], lines=report_lines)


def report_lines(report: dict[str, Any]) -> Iterator[str]:
    """Checks passed and failed (brenalis), or the metrics of each arm (acord, datafiller)."""
    if "calibration" in report:
        calibration = report["calibration"]
        yield (
            f"acord-cut ({report['split']}): {report['queries']} queries, "
            f"{calibration['ranked_clauses']} ranked clauses, "
            f"{calibration['relevant_clauses']} rated 3 stars or more, model {report['model']}"
        )
        for target, chosen in calibration["chosen"].items():
            yield f"  keeping {target}: {chosen}"
        for name in ("shipped", "words_only", "meaning_only"):
            yield f"  {name:12} {calibration[name]}"
        return
    if "checks" in report:
        for check in report["checks"]:
            yield f"{'ok  ' if check['passed'] else 'FAIL'} {check['name']}"
            if not check["passed"]:
                yield f"     expected {check['expected']}\n     got      {check['got']}"
        yield f"{report['passed']}/{report['total']} checks passed"
        return
    yield (
        f"{report['suite']} ({report['split']}): {report['queries']} queries, "
        f"{report['corpus_documents']} documents, model {report['model']}"
    )
    for arm, metrics in report["arms"].items():
        shown = ", ".join(f"{name} {value}" for name, value in metrics.items())
        yield f"  {arm:7} {shown}"
    for note in report["notes"]:
        yield f"  - {note}"
    judged = report.get("judged")
    if judged:
        yield "  judged protocol (each query ranks only the clauses rated for it):"
        for arm, metrics in judged["arms"].items():
            shown = ", ".join(f"{name} {value}" for name, value in metrics.items())
            yield f"  {arm:7} {shown}"
        for note in judged["notes"]:
            yield f"  - {note}"
