"""Quantities a clause states (durations, percentages, amounts), read from its folded text."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return re.sub(r"\s+", " ", plain.replace("\u2019", "'")).casefold()


_NUMBER_WORDS = {
    "un": 1,
    "une": 1,
    "one": 1,
    "deux": 2,
    "two": 2,
    "trois": 3,
    "three": 3,
    "quatre": 4,
    "four": 4,
    "cinq": 5,
    "five": 5,
    "six": 6,
    "sept": 7,
    "seven": 7,
    "huit": 8,
    "eight": 8,
    "neuf": 9,
    "nine": 9,
    "dix": 10,
    "ten": 10,
    "douze": 12,
    "twelve": 12,
    "quinze": 15,
    "fifteen": 15,
    "vingt": 20,
    "twenty": 20,
    "trente": 30,
    "thirty": 30,
    "quarante-cinq": 45,
    "forty-five": 45,
    "soixante": 60,
    "sixty": 60,
    "quatre-vingt-dix": 90,
    "ninety": 90,
}
_UNITS = {
    "jour": "days",
    "day": "days",
    "mois": "months",
    "month": "months",
    "an": "years",
    "annee": "years",
    "year": "years",
}
_DURATION = re.compile(
    r"(?P<number>\d+(?:[.,]\d+)?|[a-z-]+)\s*(?:\(\s*\d+\s*\)\s*)?"
    r"(?P<unit>jours?|days?|mois|months?|annees?|ans?|years?)\b"
)
_PERCENT = re.compile(r"(?P<number>\d+(?:[.,]\d+)?)\s*(?:%|pour ?cent|percent)")
_AMOUNT = re.compile(
    r"(?:(?:eur|€|\$|usd)\s*(?P<before>\d[\d  .,]*\d|\d))|"
    r"(?:(?P<after>\d[\d  .,]*\d|\d)\s*(?:euros?|eur|€|\$|usd|dollars?))"
)
_IN_MONTHS = {"days": 1 / 30, "months": 1.0, "years": 12.0}  # a month: 30 days
_IN_DAYS = {"days": 1.0, "months": 30.0, "years": 365.0}


def _number(raw: str) -> float | None:
    if raw in _NUMBER_WORDS:
        return float(_NUMBER_WORDS[raw])
    try:
        return float(raw.replace(",", "."))
    except ValueError:
        return None


def quantities(text: str, quantity: str) -> list[float]:
    """Values of ``quantity`` (days, months, years, percent, amount) the text states."""
    folded = fold(text)
    if quantity in _IN_DAYS:
        table = _IN_DAYS if quantity == "days" else _IN_MONTHS
        values = []
        for match in _DURATION.finditer(folded):
            number = _number(match.group("number"))
            unit = _UNITS.get(match.group("unit").rstrip("s"), _UNITS.get(match.group("unit")))
            if number is not None and unit is not None:
                values.append(number * table[unit] / table[quantity])
        return values
    if quantity == "percent":
        return [
            v for m in _PERCENT.finditer(folded) if (v := _number(m.group("number"))) is not None
        ]
    amounts = []
    for match in _AMOUNT.finditer(folded):
        raw = re.sub(r"[  ]", "", match.group("before") or match.group("after") or "")
        raw = raw.replace(",", "") if raw.count(",") and "." not in raw[-3:] else raw
        value = _number(raw.replace(".", "") if raw.count(".") > 1 else raw)
        if value is not None:
            amounts.append(value)
    return amounts


COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<=": lambda found, limit: found <= limit,
    ">=": lambda found, limit: found >= limit,
    "<": lambda found, limit: found < limit,
    ">": lambda found, limit: found > limit,
}
