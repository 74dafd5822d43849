"""eval_metadata [--cuad DIR] [--limit N] [--json]: our metadata extraction against CUAD's labels.

Runs the pure extraction functions (parties from the preamble, governing law) over CUAD's
contract texts and compares them with the annotators' answers in ``master_clauses.csv``. No
database and no embeddings, so the 510 contracts take seconds and it can run in CI.
"""

from __future__ import annotations

import csv
import json
import re
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents.extraction import (
    entity_key,
    extract_parties_from_text,
    governing_law_from_text,
    normalize_governing_law,
)

MAX_ERRORS = 20
# CUAD's party answers also list the collective definitions ("(individually "Party",
# collectively "Parties")", "Each of the foregoing parties is referred to ..."): not parties.
_COLLECTIVE = re.compile(
    r"\b(?:individually|collectively|together|each\s+of|each\s+and\s+both|both\s+of|referred"
    r"\s+to|hereinafter)\b",
    re.IGNORECASE,
)
# A party answer is 'NAME ("Alias")': the name ends where its parenthesis or quote opens.
_ALIAS_START = re.compile(r"\(|[\"“”«]")


def default_cuad_dir() -> Path:
    return Path(settings.BASE_DIR).parent / "shared" / "data" / "cuad"


def file_key(name: str) -> str:
    """The key that pairs a CSV "Filename" with its text file.

    The CSV names the PDF; the text files were written with ``&`` and ``'`` replaced by ``_``
    and trailing dots, spaces and hyphens dropped, and accents may differ in composition.
    """
    stem = name[: -len(Path(name).suffix)] if Path(name).suffix else name
    stem = unicodedata.normalize("NFC", stem)
    stem = re.sub(r"[&'\u2019]", "_", stem)
    return stem.rstrip(" .-_").casefold()


def gold_parties(answer: str) -> list[str]:
    """The parties of a "Parties-Answer" cell (``;``-separated), aliases and definitions out."""
    names: list[str] = []
    seen: set[str] = set()
    for item in answer.split(";"):
        alias = _ALIAS_START.search(item)
        name = (item[: alias.start()] if alias else item).strip(" ,.\n\t")
        if not name or _COLLECTIVE.search(name) or not any(c.isalpha() for c in name):
            continue
        key = entity_key(name)
        # A party listed twice (upper and title case) counts once.
        if key and key not in seen:
            seen.add(key)
            names.append(name)
    return names


def same_party(ours: str, gold: str) -> bool:
    """Equal entity keys, or one key contained in the other on word boundaries.

    Word boundaries keep a two-letter key ("ms") from matching inside any longer name.
    """
    left, right = entity_key(ours), entity_key(gold)
    if not left or not right:
        return False
    return left == right or f" {left} " in f" {right} " or f" {right} " in f" {left} "


def _has_answer(value: str) -> bool:
    # "[]" and "[* * *]" are redactions, not an answer.
    return any(char.isalpha() for char in value)


@dataclass
class Tally:
    contracts: int = 0
    with_gold_parties: int = 0
    both_main_found: int = 0
    at_least_one: int = 0
    gold_parties: int = 0
    gold_found: int = 0
    ours: int = 0
    ours_correct: int = 0
    law_evaluated: int = 0
    law_correct: int = 0
    law_unnormalisable: int = 0
    law_false_positive: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)

    def error(self, file: str, field_name: str, expected: Any, got: Any) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(
                {"file": file, "field": field_name, "expected": expected, "got": got}
            )


def _rate(numerator: int, denominator: int) -> float:
    return round(numerator / denominator, 4) if denominator else 0.0


class Command(BaseCommand):
    help = "Measure metadata extraction (parties, governing law) against CUAD's labels."
    # Pure text functions: no database, so no system checks that would start Postgres.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--cuad",
            type=Path,
            default=None,
            help="CUAD folder with full_contract_txt/ and master_clauses.csv "
            "(default: ../shared/data/cuad).",
        )
        parser.add_argument(
            "--limit", type=int, default=0, help="Evaluate the first N contracts (0 = all)."
        )
        parser.add_argument("--json", action="store_true", help="Print one JSON object.")

    def handle(self, *args: Any, **options: Any) -> None:
        cuad: Path = options["cuad"] or default_cuad_dir()
        texts_dir = cuad / "full_contract_txt"
        labels = cuad / "master_clauses.csv"
        if not texts_dir.is_dir() or not labels.is_file():
            raise CommandError(
                f"No CUAD dataset at {cuad}: expected {texts_dir} and {labels} (pass --cuad DIR)."
            )
        if options["limit"] < 0:
            raise CommandError("--limit must be 0 (all) or a positive number.")
        started = time.perf_counter()
        texts = {file_key(path.name): path for path in texts_dir.glob("*.txt")}
        with labels.open(encoding="utf-8", newline="") as handle:
            rows = sorted(csv.DictReader(handle), key=lambda row: row["Filename"])
        if options["limit"]:
            rows = rows[: options["limit"]]

        tally = Tally()
        unmatched = 0
        for position, row in enumerate(rows, start=1):
            path = texts.get(file_key(row["Filename"]))
            if path is None:
                unmatched += 1
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            tally.contracts += 1
            self._parties(tally, path.name, row["Parties-Answer"], text)
            self._law(tally, path.name, row["Governing Law-Answer"], text)
            if position % 50 == 0 and not options["json"]:
                self.stderr.write(f"{position}/{len(rows)} contracts")

        result = {
            "dataset": "cuad",
            "contracts": tally.contracts,
            "unmatched": unmatched,
            "parties": {
                "both_main_found": _rate(tally.both_main_found, tally.with_gold_parties),
                "at_least_one": _rate(tally.at_least_one, tally.with_gold_parties),
                "recall": _rate(tally.gold_found, tally.gold_parties),
                "precision": _rate(tally.ours_correct, tally.ours),
            },
            "governing_law": {
                "evaluated": tally.law_evaluated,
                "accuracy": _rate(tally.law_correct, tally.law_evaluated),
                "unnormalisable_gold": tally.law_unnormalisable,
                "false_positive": tally.law_false_positive,
            },
            "seconds": round(time.perf_counter() - started, 2),
            "errors": tally.errors,
        }
        if options["json"]:
            self.stdout.write(json.dumps(result, ensure_ascii=False))
        else:
            self._print(result)

    def _parties(self, tally: Tally, file: str, answer: str, text: str) -> None:
        gold = gold_parties(answer)
        ours = extract_parties_from_text(text)
        tally.ours += len(ours)
        tally.ours_correct += sum(1 for name in ours if any(same_party(name, g) for g in gold))
        if not gold:
            return
        found = [any(same_party(name, g) for name in ours) for g in gold]
        tally.with_gold_parties += 1
        tally.gold_parties += len(gold)
        tally.gold_found += sum(found)
        # CUAD lists parties in reading order: the first two are the contracting parties.
        tally.both_main_found += all(found[:2])
        tally.at_least_one += any(found)
        for name, hit in zip(gold[:2], found[:2], strict=True):
            if not hit:
                tally.error(file, "parties", name, ours)

    def _law(self, tally: Tally, file: str, answer: str, text: str) -> None:
        finding = governing_law_from_text(text)
        ours = str(finding.value) if finding is not None else None
        if not _has_answer(answer):
            if ours is not None:
                tally.law_false_positive += 1
                tally.error(file, "governing_law", None, ours)
            return
        expected = normalize_governing_law(answer)
        if expected is None:
            # A jurisdiction our vocabulary lacks (Kazakhstan, Colombia...): a gap, not a miss.
            tally.law_unnormalisable += 1
            return
        tally.law_evaluated += 1
        if ours == expected:
            tally.law_correct += 1
        else:
            tally.error(file, "governing_law", expected, ours)

    def _print(self, result: dict[str, Any]) -> None:
        parties, law = result["parties"], result["governing_law"]
        lines = [
            f"CUAD: {result['contracts']} contracts evaluated, {result['unmatched']} unmatched, "
            f"{result['seconds']} s",
            f"Parties: both main found {parties['both_main_found']:.1%}, at least one "
            f"{parties['at_least_one']:.1%}, recall {parties['recall']:.1%}, "
            f"precision {parties['precision']:.1%}",
            f"Governing law: accuracy {law['accuracy']:.1%} over {law['evaluated']}; "
            f"{law['unnormalisable_gold']} gold answers outside the vocabulary, "
            f"{law['false_positive']} found where CUAD has none",
        ]
        for line in lines:
            self.stdout.write(line)
        for error in result["errors"]:
            self.stdout.write(
                f"  {error['field']:<14} {error['file'][:60]}: expected {error['expected']!r}, "
                f"got {error['got']!r}"
            )
