"""Per-field accuracy with its misses: what every ``eval_metadata`` suite reports."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

EXAMPLES_PER_FIELD = 5


def rate(numerator: int, denominator: int) -> float:
    return round(numerator / denominator, 4) if denominator else 0.0


def _plain(value: Any) -> Any:
    """JSON-able form of an expected or found value (dates as ISO text)."""
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


@dataclass
class FieldScore:
    """Accuracy of one field over the contracts whose gold gives it.

    ``tolerant`` also counts the misses a documented tolerance accepts (a term-derived end
    date one day off); ``causes`` counts why each miss happened.
    """

    name: str
    # Whether a term-derived date one day off is reported as "accuracy_within_one_day".
    day_tolerance: bool = False
    evaluated: int = 0
    correct: int = 0
    tolerant: int = 0
    causes: Counter[str] = field(default_factory=Counter)
    examples: list[dict[str, Any]] = field(default_factory=list)
    # Over the contracts whose text states the gold value, when the suite can tell.
    stated: int = 0
    stated_correct: int = 0
    # The text does not state the gold, yet we answered (necessarily a wrong value).
    guessed: int = 0
    stated_known: bool = False

    def add(
        self,
        contract: str,
        expected: Any,
        got: Any,
        *,
        hit: bool | None = None,
        tolerant_hit: bool = False,
        cause: str | None = None,
        stated: bool | None = None,
        answered: Any = None,
    ) -> None:
        self.evaluated += 1
        correct = (expected == got) if hit is None else hit
        self.correct += correct
        self.tolerant += correct or tolerant_hit
        self.stated_known = self.stated_known or stated is not None
        if stated:
            self.stated += 1
            self.stated_correct += correct
        elif stated is False and answered not in (None, [], "") and not correct:
            self.guessed += 1
            cause = cause or "answered though the text does not state it"
        if correct:
            return
        reason = cause or ("none found" if got in (None, [], "") else "wrong value")
        self.causes[f"{self.name}: {reason}"] += 1
        if len(self.examples) < EXAMPLES_PER_FIELD:
            self.examples.append(
                {"contract": contract, "expected": _plain(expected), "got": _plain(got)}
            )

    def result(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "evaluated": self.evaluated,
            "accuracy": rate(self.correct, self.evaluated),
        }
        if self.day_tolerance:
            result["accuracy_within_one_day"] = rate(self.tolerant, self.evaluated)
        if self.stated_known:
            result |= {
                "stated_in_text": self.stated,
                "accuracy_when_stated": rate(self.stated_correct, self.stated),
                "guessed": self.guessed,
            }
        return {**result, "examples": self.examples}
