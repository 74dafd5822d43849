"""Contract dates scored against CUAD's labels: agreement, effective and expiration dates,
renewal. Pair rows with texts with :func:`lab.documents.evals._cuad.file_key`, then feed each pair
to :meth:`DatesTally.add` (or its reading to :meth:`DatesTally.add_reading`);
:meth:`DatesTally.result` is JSON-able.

Scoring protocol
----------------
* Gold dates are CUAD's "M/D/YYYY" with "[]" for the parts the annotator could not read
  ("[]/[]/2015" is known to the year, "02/[]/2017" to the month); a cell listing several
  dates ("07/31/2000; 07/[]/2000") is read by its first one.
* Agreement date: accuracy over the rows whose gold has a four-digit year. Ours is correct when
  it equals the gold at the gold's precision (the day when the gold has one, year and month
  when it has a month, the year otherwise); an answer coarser than the gold is wrong.
* Effective date: the same, over the rows whose gold "Effective Date-Answer" has a year.
* Expiration: over the rows whose gold is "perpetual" or a date with a year (a gold such as
  "[]/[]/[]" says a term exists but names no date: counted apart as ``undated_gold``). A
  perpetual gold needs our kind "perpetual"; a dated gold needs our date at its precision.
  ``accuracy`` accepts ±1 day for dates we derived from a duration (we show the last day of
  the term, CUAD's annotators often wrote the anniversary); ``strict_accuracy`` does not.
  Two readings of the gold that CUAD's own README supports, each counted in ``result()``:

  - ``gold_alternatives``: a cell listing several answers ("09/05/2019; perpetual") names
    the readings the annotator saw; ours is right when it matches any of them.
  - ``gold_century_slips``: a gold year before 1950 in a contract of the 1990s to 2020s
    ("12/31/1934" for "December 31, 2034") is the spreadsheet's two-digit-year slip; it is
    read a century later. Only expiration dates are concerned.

  Expiration is asked from the effective date, or the agreement date when the effective date
  is not found, as the ingestion pipeline does (the README's examples count the term from the
  "Effective Date" answer, itself the execution date when the contract says so).
* Renewal present: over all rows, gold "Renewal Term-Answer" non-blank versus our
  :class:`~documents.extraction.Renewal` found (automatic or at a party's option);
  ``automatic_accuracy`` counts only automatic renewals as present. Notice days: over rows
  with a gold notice period, ours equal to the gold in days (a month counted as 30 days, give
  or take a day per month).

Each miss is filed under a short cause ("agreement_date: wrong day") and the first examples
(file, expected, got) are kept for the report.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from documents.extraction import (
    ContractReading,
    Expiration,
    Finding,
    PartialDate,
    Renewal,
    Unknown,
    read_contract,
)
from lab.documents.evals._scoring import rate

MAX_EXAMPLES = 40
_TERM_RULES = frozenset({"duration_from_signature", "duration_from_start", "anniversary"})
_GOLD_DATE = re.compile(r"^\s*([^/;]*)/([^/;]*)/([^/;]*)")
_GOLD_NOTICE = re.compile(r"(\d+)\s*(day|month|year)", re.IGNORECASE)


def gold_date(answer: str) -> PartialDate | None:
    """CUAD's "M/D/YYYY" with "[]" parts, as a PartialDate; None without a four-digit year."""
    match = _GOLD_DATE.match(answer)
    if not match:
        return None
    month, day, year = (part.strip() for part in match.groups())
    if not re.fullmatch(r"\d{4}", year):
        return None
    try:
        if not month.isdigit():
            return PartialDate(int(year))
        return PartialDate(int(year), int(month), int(day) if day.isdigit() else None)
    except ValueError:
        return None


def date_miss(ours: PartialDate | None, gold: PartialDate) -> str | None:
    """None when ``ours`` equals ``gold`` at the gold's precision, else why not."""
    if ours is None:
        return "none found"
    if ours.year != gold.year:
        return "wrong year"
    if gold.month is None:
        return None
    if ours.month is None:
        return "coarser than gold"
    if ours.month != gold.month:
        return "wrong month"
    if gold.day is None:
        return None
    if ours.day is None:
        return "coarser than gold"
    return None if ours.day == gold.day else "wrong day"


def _cause(result: Finding | Unknown) -> str:
    return f"unknown ({result.reason})" if isinstance(result, Unknown) else "none found"


def _value(result: Finding | Unknown) -> Any:
    return result.value if isinstance(result, Finding) else None


def _shown(result: Finding | Unknown) -> str:
    if isinstance(result, Unknown):
        return f"Unknown({result.reason})"
    value = result.value
    if isinstance(value, PartialDate):
        return value.iso()
    if isinstance(value, Expiration):
        return value.date.iso() if value.date is not None else value.kind
    return repr(value)


def score_date(gold_answer: str, result: Finding | Unknown) -> tuple[bool, str | None] | None:
    """(correct, cause of the miss) for a date field; None when the gold names no year."""
    gold = gold_date(gold_answer)
    if gold is None:
        return None
    ours = _value(result)
    cause = date_miss(ours if isinstance(ours, PartialDate) else None, gold)
    if cause == "none found":
        cause = _cause(result)
    return cause is None, cause


_CENTURY_SLIP_BEFORE = 1950


def expiration_golds(answer: str) -> tuple[list[str], bool]:
    """The answers a gold cell lists, and whether a century slip was undone in one."""
    answers: list[str] = []
    slipped = False
    for part in answer.split(";"):
        gold = gold_date(part)
        if gold is not None and gold.year < _CENTURY_SLIP_BEFORE:
            part = re.sub(rf"{gold.year}\s*$", str(gold.year + 100), part.strip())
            slipped = True
        if part.strip():
            answers.append(part)
    return answers, slipped


def score_expiration(
    gold_answer: str, result: Finding | Unknown
) -> tuple[bool, bool, str | None] | None:
    """(tolerant, strict, cause) for the expiration; None when the gold names neither a date
    nor perpetual. A cell listing several answers is scored by the one that suits ours best."""
    scored = [
        score
        for part in gold_answer.split(";")
        if (score := _score_one_expiration(part, result)) is not None
    ]
    if not scored:
        return None
    return max(scored, key=lambda score: (score[1], score[0]))


def _score_one_expiration(
    gold_answer: str, result: Finding | Unknown
) -> tuple[bool, bool, str | None] | None:
    ours = _value(result)
    ours = ours if isinstance(ours, Expiration) else None
    if "perpetual" in gold_answer.lower():
        if ours is not None and ours.kind == "perpetual":
            return True, True, None
        return False, False, "perpetual missed" if ours is None else "date instead of perpetual"
    gold = gold_date(gold_answer)
    if gold is None:
        return None
    if ours is not None and ours.kind == "perpetual":
        return False, False, "perpetual instead of a date"
    cause = date_miss(ours.date if ours is not None else None, gold)
    if cause is None:
        return True, True, None
    if cause == "none found":
        reason = result.reason if isinstance(result, Unknown) else ""
        cause = "term counted from unknown start" if reason == "start_unknown" else _cause(result)
    near = (
        ours is not None
        and ours.date is not None
        and isinstance(result, Finding)
        and result.rule in _TERM_RULES
        and gold.exact is not None
        and ours.date.exact is not None
        and abs((ours.date.exact - gold.exact).days) <= 1
    )
    return near, False, "one day off (term)" if near else cause


def gold_notice_days(answer: str) -> int | None:
    match = _GOLD_NOTICE.search(answer)
    if not match:
        return None
    count, unit = int(match.group(1)), match.group(2).lower()
    return count * {"day": 1, "month": 30, "year": 365}[unit]


@dataclass
class _Rate:
    evaluated: int = 0
    correct: int = 0

    def add(self, correct: bool) -> None:
        self.evaluated += 1
        self.correct += correct

    def result(self) -> dict[str, Any]:
        accuracy = rate(self.correct, self.evaluated)
        return {"evaluated": self.evaluated, "correct": self.correct, "accuracy": accuracy}


@dataclass
class DatesTally:
    """Scores accumulated over CUAD rows, with timings and the causes of the misses."""

    agreement: _Rate = field(default_factory=_Rate)
    effective: _Rate = field(default_factory=_Rate)
    expiration: _Rate = field(default_factory=_Rate)
    expiration_strict: _Rate = field(default_factory=_Rate)
    renewal: _Rate = field(default_factory=_Rate)
    renewal_automatic: _Rate = field(default_factory=_Rate)
    notice: _Rate = field(default_factory=_Rate)
    undated_gold: int = 0
    gold_alternatives: int = 0
    gold_century_slips: int = 0
    causes: Counter[str] = field(default_factory=Counter)
    examples: list[dict[str, Any]] = field(default_factory=list)

    def _miss(self, file: str, field_name: str, cause: str, expected: str, got: str) -> None:
        self.causes[f"{field_name}: {cause}"] += 1
        if len(self.examples) < MAX_EXAMPLES:
            self.examples.append(
                {
                    "file": file,
                    "field": field_name,
                    "cause": cause,
                    "expected": expected,
                    "got": got,
                }
            )

    def add(self, file: str, row: dict[str, str], text: str) -> None:
        """Read one contract as the pipeline does and score its dates against its row."""
        self.add_reading(file, row, read_contract(text))

    def add_reading(self, file: str, row: dict[str, str], reading: ContractReading) -> None:
        """Score a contract's reading (:func:`~documents.extraction.read_contract`)."""
        agreed, effective = reading.agreement_date, reading.effective_date
        expires, renews = reading.expiration, reading.renewal
        for field_name, tally, column, result in (
            ("agreement_date", self.agreement, "Agreement Date-Answer", agreed),
            ("effective_date", self.effective, "Effective Date-Answer", effective),
        ):
            scored = score_date(row.get(column, ""), result)
            if scored is not None:
                tally.add(scored[0])
                if scored[1] is not None:
                    self._miss(file, field_name, scored[1], row[column], _shown(result))
        self._score_expiration(file, row.get("Expiration Date-Answer", ""), expires)
        self._score_renewal(file, row, renews)

    def _score_expiration(self, file: str, answer: str, result: Finding | Unknown) -> None:
        answers, slipped = expiration_golds(answer)
        scored = score_expiration(";".join(answers), result)
        if scored is not None:
            self.gold_alternatives += len(answers) > 1
            self.gold_century_slips += slipped
        if scored is None:
            self.undated_gold += bool(answer.strip())
            return
        tolerant, strict, cause = scored
        self.expiration.add(tolerant)
        self.expiration_strict.add(strict)
        if cause is not None:
            self._miss(file, "expiration", cause, answer, _shown(result))

    def _score_renewal(self, file: str, row: dict[str, str], result: Finding | Unknown) -> None:
        gold_present = bool(row.get("Renewal Term-Answer", "").strip())
        ours = _value(result)
        ours = ours if isinstance(ours, Renewal) else None
        self.renewal.add(gold_present == (ours is not None))
        self.renewal_automatic.add(gold_present == (ours is not None and ours.automatic))
        if gold_present != (ours is not None):
            cause = "missed" if gold_present else "false positive"
            self._miss(file, "renewal", cause, row.get("Renewal Term-Answer", ""), _shown(result))
        gold_days = gold_notice_days(row.get("Notice Period to Terminate Renewal-Answer", ""))
        if gold_days is not None:
            got = ours.notice_days if ours is not None else None
            self.notice.add(got is not None and abs(got - gold_days) <= max(1, gold_days // 30))

    def result(self) -> dict[str, Any]:
        return {
            "agreement_date": self.agreement.result(),
            "effective_date": self.effective.result(),
            "expiration": {
                **self.expiration.result(),
                "strict_accuracy": self.expiration_strict.result()["accuracy"],
                "undated_gold": self.undated_gold,
                "gold_alternatives": self.gold_alternatives,
                "gold_century_slips": self.gold_century_slips,
            },
            "renewal_present": {
                **self.renewal.result(),
                "automatic_accuracy": self.renewal_automatic.result()["accuracy"],
            },
            "renewal_notice": self.notice.result(),
            "causes": dict(self.causes.most_common(20)),
            "examples": self.examples,
        }
