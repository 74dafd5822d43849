"""Dates: parsing metadata values, locating date phrases in text, deriving a contract's end."""

from __future__ import annotations

import re
from datetime import date
from functools import cache
from typing import Any

import dateparser  # type: ignore[import-untyped]

from ._common import fold_accents

_MONTHS: dict[str, int] = {
    # French (accents are folded before lookup) and English, full and abbreviated.
    "janvier": 1, "janv": 1, "fevrier": 2, "fevr": 2, "fev": 2, "mars": 3, "avril": 4,
    "avr": 4, "mai": 5, "juin": 6, "juillet": 7, "juil": 7, "aout": 8, "septembre": 9,
    "octobre": 10, "novembre": 11, "decembre": 12, "dec": 12,
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11,
    "nov": 11, "december": 12,
}  # fmt: skip
# Accented spellings are matched in the raw text, then folded for the lookup.
_MONTH_RE = (
    r"(?:janvier|janv|f[ée]vrier|f[ée]vr|f[ée]v|mars|avril|avr|mai|juin|juillet|juil|ao[uû]t"
    r"|septembre|octobre|novembre|d[ée]cembre|d[ée]c|january|jan|february|feb|march|mar|april"
    r"|apr|may|june|jun|july|jul|august|aug|september|sept|sep|october|oct|november|nov"
    r"|december)"
)
_DAY_SUFFIX = r"(?:\s?(?:er|st|nd|rd|th|e|[èe]me))?"

# One alternation, so that finditer never returns overlapping phrases.
DATE_PHRASE = (
    r"(?:\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
    r"|\d{4}/\d{1,2}/\d{1,2}"
    r"|\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})(?!\d)"
    rf"|\d{{1,2}}{_DAY_SUFFIX}\s+(?:day\s+of\s+)?{_MONTH_RE}\.?,?\s+(?:of\s+)?\d{{4}}"
    rf"|{_MONTH_RE}\.?\s+\d{{1,2}}{_DAY_SUFFIX}[,.]?\s+\d{{4}})"
)
_DATE_PHRASE = re.compile(DATE_PHRASE, re.IGNORECASE)

_ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ].*)?")
_YMD = re.compile(r"(\d{4})[/.](\d{1,2})[/.](\d{1,2})")
_DMY = re.compile(r"(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})")
_DAY_MONTH = re.compile(
    rf"(\d{{1,2}}){_DAY_SUFFIX}\s+(?:day\s+of\s+)?({_MONTH_RE})\.?,?\s+(?:of\s+)?(\d{{4}})",
    re.IGNORECASE,
)
_MONTH_DAY = re.compile(
    rf"({_MONTH_RE})\.?\s+(\d{{1,2}}){_DAY_SUFFIX}[,.]?\s+(\d{{4}})", re.IGNORECASE
)
_FALLBACK_MAX_CHARS = 64


def _make_date(year: int, month: int, day: int) -> date | None:
    if year < 100:
        year += 2000 if year < 70 else 1900
    try:
        return date(year, month, day)
    except ValueError:
        return None


@cache
def _dateparser(order: str) -> Any:
    # Building the parser once keeps language detection and settings out of the hot path;
    # relative phrases ("aujourd'hui", "in 2 days") are not dates a contract carries.
    return dateparser.DateDataParser(
        languages=["fr", "en"],
        settings={
            "DATE_ORDER": order,
            "PREFER_DAY_OF_MONTH": "first",
            "REQUIRE_PARTS": ["day", "month", "year"],
            "PARSERS": ["absolute-time", "custom-formats"],
        },
    )


def _fast_parse(value: str) -> date | bool | None:
    """A date, None for a recognised but impossible date, False when no fast path applies."""
    for pattern, order in ((_ISO, "ymd"), (_YMD, "ymd"), (_DMY, "dmy")):
        match = pattern.fullmatch(value)
        if match:
            first, second, third = (int(group) for group in match.groups())
            if order == "ymd":
                return _make_date(first, second, third)
            return _make_date(third, second, first)
    match = _DAY_MONTH.fullmatch(value)
    if match:
        month = _MONTHS.get(fold_accents(match.group(2)).lower())
        return _make_date(int(match.group(3)), month, int(match.group(1))) if month else None
    match = _MONTH_DAY.fullmatch(value)
    if match:
        month = _MONTHS.get(fold_accents(match.group(1)).lower())
        return _make_date(int(match.group(3)), month, int(match.group(2))) if month else None
    return False


def parse_date(value: str | None) -> date | None:
    """Parse a date as found in data-room metadata or contract text; None when it is not one.

    Numeric dates are day-first (French convention) unless they start with a four-digit year.
    Never raises.
    """
    if not value:
        return None
    cleaned = value.strip().strip(".,;")
    if not cleaned:
        return None
    fast = _fast_parse(cleaned)
    if fast is not False:
        return fast if isinstance(fast, date) else None
    if len(cleaned) > _FALLBACK_MAX_CHARS or not any(char.isdigit() for char in cleaned):
        return None
    order = "YMD" if re.match(r"\d{4}\D", cleaned) else "DMY"
    try:
        parsed = _dateparser(order).get_date_data(cleaned).date_obj
    except Exception:  # dateparser raises assorted errors on odd input; garbage is None.
        return None
    return parsed.date() if parsed is not None else None


# A year, or a short numeric date: every date phrase contains one. Scanning for these is ten
# times cheaper than running the full date-phrase pattern over a long contract.
_DATE_ANCHOR = re.compile(r"\d{4}|\d{1,2}[/.-]\d{1,2}[/.-]\d{2}")


def date_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Spans of the date phrases in ``text[start:end]``, located around years first."""
    spans: list[tuple[int, int]] = []
    last_end = start
    for anchor in _DATE_ANCHOR.finditer(text, start, len(text) if end is None else end):
        if anchor.start() < last_end:
            continue
        low = max(last_end, anchor.start() - 40)
        while low > last_end and not text[low - 1].isspace():
            low -= 1
        for match in _DATE_PHRASE.finditer(text, low, min(len(text), anchor.end() + 30)):
            if match.start() <= anchor.start() < match.end():
                spans.append(match.span())
                last_end = match.end()
                break
    return spans


def find_dates(text: str, start: int = 0, end: int | None = None) -> list[tuple[date, int, int]]:
    """Every parsable date phrase in ``text[start:end]``, with its span."""
    found = []
    for phrase_start, phrase_end in date_spans(text, start, end):
        parsed = parse_date(text[phrase_start:phrase_end])
        if parsed is not None:
            found.append((parsed, phrase_start, phrase_end))
    return found


# --- key-word scans ------------------------------------------------------------------------


def lowered(text: str) -> str | None:
    """``text`` in lower case, or None when lowering changes its length (a few non-ASCII
    letters do) and positions in one would not be positions in the other."""
    low = text.lower()
    return low if len(low) == len(text) else None


def word_starts(text: str, words: tuple[str, ...], pattern: re.Pattern[str]) -> list[int]:
    """Where ``pattern`` matches, found from its literal key ``words``: ``str.find`` runs
    thirty times faster than a case-insensitive alternation over a 300-page contract."""
    low = lowered(text)
    if low is None:
        return [match.start() for match in pattern.finditer(text)]
    starts: set[int] = set()
    for word in words:
        position = low.find(word)
        while position != -1:
            if pattern.match(text, position):
                starts.add(position)
            position = low.find(word, position + 1)
    return sorted(starts)


# --- number words ---------------------------------------------------------------------------

_NUMBER_WORDS: dict[str, int] = {
    "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7,
    "huit": 8, "neuf": 9, "dix": 10, "onze": 11, "douze": 12, "treize": 13, "quatorze": 14,
    "quinze": 15, "seize": 16, "vingt": 20, "trente": 30, "quarante": 40, "cinquante": 50,
    "soixante": 60,
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_NUMBER_WORD_RE = "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
NUMBER = (
    rf"(?:\d{{1,3}}|(?:{_NUMBER_WORD_RE})(?:(?:-|\s)(?:et(?:-|\s))?(?:{_NUMBER_WORD_RE}))*)"
    # "one (I) year": a text layer that read the digit 1 as a capital I or a small L.
    r"(?:\s*\((?:\d{1,3}|[Il])\))?"
)


def number_value(phrase: str) -> int | None:
    """ "neuf (9)" -> 9, "vingt-quatre" -> 24, "three" -> 3, "18" -> 18."""
    digits = re.search(r"\d+", phrase)
    if digits:
        return int(digits.group(0))
    total = 0
    for word in re.split(r"[\s-]+", phrase.lower()):
        if word != "et":
            total += _NUMBER_WORDS.get(word, 0)
    return total or None
