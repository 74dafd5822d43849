"""The contract type read from the text, scored against CUAD's "Document Name" answers.

Gold and ours go through the same :func:`contract_type_key`, so the score measures finding the
title, not the vocabulary; the vocabulary is judged by the gold names it cannot map
(``unmappable_gold``) and by those it can only call "other" (``other_gold``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from documents.extraction import (
    Finding,
    Unknown,
    collapse_whitespace,
    contract_type_key,
)
from lab.documents.evals._scoring import rate

MAX_EXAMPLES = 20
TOP_NAMES = 10
GOLD_COLUMN = "Document Name-Answer"


def _gold_name(row: dict[str, str]) -> str:
    return collapse_whitespace(row.get(GOLD_COLUMN) or "").upper()


@dataclass
class ContractTypeScore:
    """Accumulates one CUAD row at a time; :meth:`result` is the JSON-able summary."""

    evaluated: int = 0
    correct: int = 0
    unmappable_gold: int = 0
    unmapped_names: Counter[str] = field(default_factory=Counter)
    other_names: Counter[str] = field(default_factory=Counter)
    error_categories: Counter[str] = field(default_factory=Counter)
    examples: list[dict[str, Any]] = field(default_factory=list)

    def add(self, file: str, row: dict[str, str], found: Finding | Unknown) -> None:
        """Score one contract: ``row`` is a ``master_clauses.csv`` row, ``found`` the type read
        in its text (:func:`~documents.extraction.contract_type_from_text`)."""
        name = _gold_name(row)
        gold = contract_type_key(name)
        if gold is None:
            # A gold name no key fits ("EXHIBIT B"): a vocabulary question, not our miss.
            self.unmappable_gold += 1
            self.unmapped_names[name] += 1
            return
        if gold == "other":
            self.other_names[name] += 1
        self.evaluated += 1
        ours = found.value.key if isinstance(found, Finding) else None
        if ours == gold:
            self.correct += 1
            return
        category = self._category(found, gold)
        self.error_categories[category] += 1
        if len(self.examples) < MAX_EXAMPLES:
            title = found.value.title if isinstance(found, Finding) else None
            self.examples.append(
                {"file": file, "expected": gold, "got": ours, "gold_name": name, "title": title}
            )

    @staticmethod
    def _category(found: Finding | Unknown, gold: str) -> str:
        if isinstance(found, Unknown):
            return "type: title not found"
        return f"type: wrong key ({found.value.key} vs {gold})"

    def result(self) -> dict[str, Any]:
        return {
            "evaluated": self.evaluated,
            "accuracy": rate(self.correct, self.evaluated),
            "unmappable_gold": self.unmappable_gold,
            "top_unmapped_names": self.unmapped_names.most_common(TOP_NAMES),
            "other_gold": sum(self.other_names.values()),
            "top_other_names": self.other_names.most_common(TOP_NAMES),
            "errors": dict(self.error_categories.most_common()),
            "examples": self.examples,
        }
