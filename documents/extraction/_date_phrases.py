"""Date phrases read at their own precision: "March 5, 2004", "February ___, 2017" (a month),
"this ___ day of ______, 2004" (a year), "[●] 2020", "12 mars 2023", "03/05/04".

:func:`parse_date` answers a whole day or nothing; contracts are often signed on a printed
form whose blanks were never filled, and the known part of such a date is still worth keeping.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ._common import fold_accents
from ._dates import _MONTH_RE, _MONTHS
from ._partial import PartialDate

# A blank left to fill in by hand: underscores, "[●]", "[ ]", "[*]", dots, or nothing at all
# once the text extraction dropped the underline ("March , 2017").
_BLANK = r"(?:_+|\[[^\]\n]{0,12}\]|[●•\u25cf]|\*{1,3}|\.{3,}|…|-{2,})"
# An underline the extraction turned into dashes may sit before the year ("31 December, ---
# 1996").
_YEAR = r"(?:-{2,}\s*)?(?P<year>(?:19|20)\d{2})(?!\d)"
_DAY = r"(?<!\d)(?P<day>[0-3]?\d)(?!\d)"
_DAY_WORDS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30, "twenty-first": 21,
    "twenty-second": 22, "twenty-third": 23, "twenty-fourth": 24, "twenty-fifth": 25,
    "twenty-sixth": 26, "twenty-seventh": 27, "twenty-eighth": 28, "twenty-ninth": 29,
    "thirty-first": 31, "premier": 1,
}  # fmt: skip
_DAY_WORD = (
    r"\b(?P<day_word>"
    + "|".join(sorted((word.replace("-", r"[\s-]") for word in _DAY_WORDS), key=len, reverse=True))
    + r")"
)
# "1st", "15t h" (the extraction sometimes splits the suffix), "1er", "2ème".
_ORDINAL = r"(?:\s?(?:s\s?t|n\s?d|r\s?d|t\s?h|er|e|[èe]me)\b)?"
_OPTIONAL_BLANK = rf"(?:\s*{_BLANK})?"

_PATTERNS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        # "the 5th day of March, 2004", "this ___ day of ______, 2004", "____ day of March 2004"
        rf"(?:{_DAY}{_ORDINAL}|{_DAY_WORD}|{_BLANK}|\b)\s*day\s+of\s+(?:(?P<month>{_MONTH_RE})\b\.?|{_BLANK})?"
        rf"\s*,?\s*(?:of\s+|in\s+the\s+year\s+)?{_YEAR}",
        # "March 5, 2004", "February ___, 2017", "March , 2017", "March 2017", and "March 18.
        # 2021" where the text layer read the comma as a full stop.
        rf"\b(?P<month>{_MONTH_RE})\b\.?\s*(?:{_DAY}{_ORDINAL}\.?|{_BLANK})?\s*,?\s*{_YEAR}",
        # "5 March 2004", "1er mars 2023", "___ mars 2023"
        rf"(?:{_DAY}{_ORDINAL}|{_BLANK})\s*(?P<month>{_MONTH_RE})\b\.?,?\s+{_YEAR}",
        # ISO and numeric dates; the order of day and month depends on the language.
        r"\b(?P<year>(?:19|20)\d{2})-(?P<month>\d{1,2})-(?P<day>\d{1,2})\b",
        r"(?<![\d/.-])(?P<first>\d{1,2})[/.-](?P<second>\d{1,2})[/.-](?P<year>\d{4}|\d{2})(?![\d/])",
        # "[●] 2020", "_______, 2004": only the year is known.
        rf"(?P<blank>{_BLANK}\s*,?|(?<=\s),)\s*{_YEAR}",
    )
)


@dataclass(frozen=True)
class DatePhrase:
    """A date phrase located in a text: its value, or None when it names no real day."""

    value: PartialDate | None
    start: int
    end: int
    two_digit_year: bool = False


def _month_number(word: str) -> int | None:
    return _MONTHS.get(fold_accents(word).lower().rstrip("."))


def _numeric(match: re.Match[str], *, month_first: bool) -> tuple[PartialDate | None, bool]:
    first, second = int(match.group("first")), int(match.group("second"))
    raw_year = match.group("year")
    year = int(raw_year)
    if len(raw_year) == 2:
        year += 2000 if year < 70 else 1900
    month, day = (first, second) if month_first else (second, first)
    # "31/02/2024" in an English text is still day-first: the only reading with a month.
    if month > 12 >= day:
        month, day = day, month
    return _partial(year, month, day), len(raw_year) == 2


def _partial(year: int, month: int | None, day: int | None) -> PartialDate | None:
    try:
        return PartialDate(year, month, day if month is not None else None)
    except ValueError:
        return None


def _value(match: re.Match[str], *, month_first: bool) -> tuple[PartialDate | None, bool]:
    groups = match.groupdict()
    if "first" in groups:
        return _numeric(match, month_first=month_first)
    year = int(groups["year"])
    raw_month = groups.get("month")
    if raw_month is None:
        return _partial(year, None, None), False
    month = int(raw_month) if raw_month.isdigit() else _month_number(raw_month)
    if month is None:
        return None, False
    raw_day = groups.get("day")
    day_word = groups.get("day_word")
    if day_word:
        return _partial(year, month, _DAY_WORDS.get(re.sub(r"\s", "-", day_word.lower()))), False
    return _partial(year, month, int(raw_day) if raw_day else None), False


# Every phrase holds a year: the patterns (whose leading alternations cost a microsecond a
# character) are run only in the windows that end just after one.
_YEAR_ANCHOR = re.compile(r"(?:19|20)\d{2}(?!\d)|\d{1,2}[/.-]\d{1,2}[/.-]\d{2}(?!\d)")
_BEFORE_YEAR, _AFTER_YEAR = 120, 8


def _year_windows(text: str, start: int, stop: int) -> list[tuple[int, int]]:
    windows: list[tuple[int, int]] = []
    for anchor in _YEAR_ANCHOR.finditer(text, start, stop):
        low, high = max(start, anchor.start() - _BEFORE_YEAR), min(stop, anchor.end() + _AFTER_YEAR)
        if windows and low <= windows[-1][1]:
            windows[-1] = (windows[-1][0], high)
        else:
            windows.append((low, high))
    return windows


def date_phrases(
    text: str, start: int = 0, end: int | None = None, *, month_first: bool = True
) -> Iterator[DatePhrase]:
    """The date phrases of ``text[start:end]`` in reading order, overlaps resolved in favour
    of the phrase that starts first, then the longest."""
    stop = len(text) if end is None else min(end, len(text))
    spans = {
        match.span(): match
        for low, high in _year_windows(text, max(0, start), stop)
        for pattern in _PATTERNS
        for match in pattern.finditer(text, low, high)
    }
    matches = sorted(spans.values(), key=lambda match: (match.start(), -match.end()))
    covered_until = -1
    for match in matches:
        if match.start() < covered_until:
            continue
        covered_until = match.end()
        value, two_digit = _value(match, month_first=month_first)
        yield DatePhrase(value, match.start(), match.end(), two_digit)


def first_date_phrase(
    text: str, start: int, end: int, *, month_first: bool = True
) -> DatePhrase | None:
    """The first date phrase of ``text[start:end]``, or None."""
    return next(date_phrases(text, start, end, month_first=month_first), None)


_FRENCH_WORDS = re.compile(r"\b(?:le|la|les|du|des|et|entre|soci[ée]t[ée])\b", re.IGNORECASE)
_ENGLISH_WORDS = re.compile(r"\b(?:the|and|of|between|this|agreement)\b", re.IGNORECASE)


def reads_french(text: str) -> bool:
    """Whether the opening of the text is French: numeric dates are then day-first."""
    opening = text[:3000]
    return len(_FRENCH_WORDS.findall(opening)) > len(_ENGLISH_WORDS.findall(opening))
