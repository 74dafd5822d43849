"""Money amounts with their currency: "12 500 000 €", "EUR 3,5 millions", "$1,000,000"."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from ._common import excerpt, fold_accents


@dataclass(frozen=True)
class Amount:
    """An amount of money found in a text."""

    value: Decimal
    currency: str
    evidence: str


_CURRENCIES: list[tuple[str, str]] = [
    (r"€|euros?|eur", "EUR"),
    (r"us\$|\$|usd|dollars?(?:\s+(?:americains|us))?|us\s+dollars?", "USD"),
    (r"£|gbp|livres?\s+sterling|pounds?(?:\s+sterling)?", "GBP"),
    (r"chf|francs?\s+suisses|swiss\s+francs?", "CHF"),
]
_PREFIX_CURRENCY = r"(?:US\$|\$|€|£|USD|EUR|GBP|CHF)"
_SUFFIX_CURRENCY = (
    r"(?:€|euros?\b|EUR\b|USD\b|US\$|\$|CHF\b|GBP\b|£|dollars?(?:\s+(?:am[ée]ricains|US))?\b"
    r"|US\s+dollars?\b|francs?\s+suisses\b|Swiss\s+francs?\b|livres?\s+sterling\b"
    r"|pounds?(?:\s+sterling)?\b)"
)
# A number never starts inside a run of digit groups ("123 456 789 …"): trying every group
# of a long price table as a start made this quadratic (20 KB took 6 s).
_NUMBER = (
    r"(?<![\d.,])(?<!\d[ \u00a0\u202f])"
    r"(?:\d{1,3}(?:[ \u00a0\u202f.,]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d+)?)"
)
_MULTIPLIER = r"(?:millions?|milliards?|billions?|thousand|mille|M|Mds?|k)\b"
_AMOUNT = re.compile(
    rf"(?P<pcur>{_PREFIX_CURRENCY})\s?(?P<pnum>{_NUMBER})(?:\s*(?P<pmul>{_MULTIPLIER}))?"
    rf"|(?P<snum>{_NUMBER})\s*(?:(?P<smul>{_MULTIPLIER})\s*)?(?:d['\u2019]\s*|de\s+)?"
    rf"(?P<scur>{_SUFFIX_CURRENCY})",
    re.IGNORECASE,
)
_MULTIPLIERS = {"k": 1_000, "thousand": 1_000, "mille": 1_000, "m": 1_000_000}


def _currency_code(raw: str) -> str:
    folded = fold_accents(raw).lower().strip()
    for pattern, code in _CURRENCIES:
        if re.fullmatch(pattern, folded):
            return code
    return "USD" if "dollar" in folded else "EUR"


def _number(raw: str) -> Decimal | None:
    digits = re.sub(r"[ \u00a0\u202f]", "", raw)
    separators = [char for char in digits if char in ".,"]
    if separators:
        last = digits.rfind(separators[-1])
        decimals = len(digits) - last - 1
        # "1.250.000" and "46,500" group thousands; "3,5" and "96,40" carry decimals.
        grouping = (len(separators) > 1 and len(set(separators)) == 1) or decimals == 3
        if grouping and separators.count(separators[-1]) == len(separators):
            digits = digits.replace(separators[-1], "")
        else:
            integer = re.sub(r"[.,]", "", digits[:last])
            digits = f"{integer}.{digits[last + 1 :]}"
    try:
        return Decimal(digits)
    except InvalidOperation:
        return None


def _multiplier(raw: str | None) -> int:
    if not raw:
        return 1
    word = raw.lower()
    if word.startswith(("milliard", "billion", "md")):
        return 1_000_000_000
    if word.startswith("million"):
        return 1_000_000
    return _MULTIPLIERS.get(word, 1)


def extract_amounts(text: str, limit: int = 20) -> list[Amount]:
    """Money amounts in order of appearance, at most `limit`, with ISO currency codes."""
    amounts: list[Amount] = []
    for match in _AMOUNT.finditer(text):
        raw_number = match.group("pnum") or match.group("snum")
        currency = match.group("pcur") or match.group("scur")
        number = _number(raw_number)
        if number is None or number <= 0:
            continue
        value = number * _multiplier(match.group("pmul") or match.group("smul"))
        if value == value.to_integral_value():
            value = value.quantize(Decimal(1))
        evidence = excerpt(text, match.start(), match.end(), context=40)
        amounts.append(Amount(value, _currency_code(currency), evidence))
        if len(amounts) >= limit:
            break
    return amounts
