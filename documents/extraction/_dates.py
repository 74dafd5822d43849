"""Dates: parsing metadata values, locating date phrases in text, deriving a contract's end."""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from datetime import date, timedelta
from functools import cache
from typing import Any

import dateparser  # type: ignore[import-untyped]

from ._common import Finding, excerpt, fold_accents

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
    rf"|{_MONTH_RE}\.?\s+\d{{1,2}}{_DAY_SUFFIX},?\s+\d{{4}})"
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
    rf"({_MONTH_RE})\.?\s+(\d{{1,2}}){_DAY_SUFFIX},?\s+(\d{{4}})", re.IGNORECASE
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


def date_spans(text: str) -> list[tuple[int, int]]:
    """Spans of the date phrases in the text, located around years first."""
    spans: list[tuple[int, int]] = []
    last_end = 0
    for anchor in _DATE_ANCHOR.finditer(text):
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


def find_dates(text: str) -> list[tuple[date, int, int]]:
    """Every parsable date phrase in the text, with its span."""
    found = []
    for start, end in date_spans(text):
        parsed = parse_date(text[start:end])
        if parsed is not None:
            found.append((parsed, start, end))
    return found


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
}  # fmt: skip
_NUMBER_WORD_RE = "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True))
NUMBER = (
    rf"(?:\d{{1,3}}|(?:{_NUMBER_WORD_RE})(?:(?:-|\s)(?:et(?:-|\s))?(?:{_NUMBER_WORD_RE}))*)"
    r"(?:\s*\(\d{1,3}\))?"
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


# --- end dates -------------------------------------------------------------------------------

_D = rf"(?P<date>{DATE_PHRASE})"
_APOS = "['\u2019]"
# Each rule is the wording that precedes an end date; it is tried on the few words before
# every date phrase instead of being scanned over the whole contract.
_EXTENSION_RULES = (
    rf"(?:report[ée]e?s?|prorog[ée]e?s?|prolong[ée]e?s?|repouss[ée]e?s?)\s+(?:jusqu{_APOS}(?:au|à)|au|à)\s+(?:le\s+)?",
    r"\bextended\s+(?:until|to|through|till)\s+",
)  # fmt: skip
_EXPLICIT_END_RULES = (
    rf"\bjusqu{_APOS}(?:au|à)\s+(?:le\s+)?",
    r"\b(?:prend|prendra|prennent)\s+fin\s+(?:le\s+)?",
    rf"\bs{_APOS}ach[eè]v(?:e|era|ent)\s+(?:au\s+plus\s+tard\s+)?le\s+",
    r"\b(?:expire|expirera|arrive\s+à\s+(?:échéance|son\s+terme))\s+le\s+",
    r"\bdate\s+de\s+fin\s*:?\s*(?:le\s+)?",
    rf"\bdu\s+{DATE_PHRASE}\s+au\s+",
    rf"\bfrom\s+{DATE_PHRASE}\s+(?:to|until|through)\s+",
    r"\b(?:until|through|till)\s+(?:and\s+including\s+)?",
    r"\b(?:ends?|ending|expires?|expiring|terminates?|terminating|end|expire|terminate)\s+on\s+",
    r"\bexpiration\s+date\s+(?:shall\s+be|is|of)?\s*:?\s*",
)  # fmt: skip
_EXTENSION = [re.compile(rf"(?:{rule})$", re.IGNORECASE) for rule in _EXTENSION_RULES]
_EXPLICIT_END = [re.compile(rf"(?:{rule})$", re.IGNORECASE) for rule in _EXPLICIT_END_RULES]
_RULE_LOOKBACK_CHARS = 120

_UNIT = r"(?P<unit>ans?|ann[ée]es?|mois|years?|months?)"
_DURATION = re.compile(rf"(?<![\w-])(?P<number>{NUMBER})\s+(?:\w+\s+)?{_UNIT}\b", re.IGNORECASE)
_UNIT_WORD = re.compile(r"\b(?:ans?|ann[ée]es?|mois|years?|months?)\b", re.IGNORECASE)
# Durations of the contract itself, as opposed to notice periods, trial periods, rates.
_STRONG_BEFORE = re.compile(
    r"(?:dur[ée]e\s+(?:\w+\s+)?(?:de|d['\u2019])|conclue?s?\s+pour|term\s+of|period\s+of"
    r"|couvre\s+les|pour\s+une\s+p[ée]riode\s+de)\s*$",
    re.IGNORECASE,
)
_WEAK_BEFORE = re.compile(r"(?:\bpour|\bpendant|\bfor|\bsur)\s*$|\n\s*$", re.IGNORECASE)
_STRONG_AFTER = re.compile(
    r"^\W*(?:à\s+compter|à\s+partir|qui\s+suivent|suivant|from|after|following|commencing)",
    re.IGNORECASE,
)
_EXCLUDED_BEFORE = re.compile(
    r"(?:chaque|each|essai|trial|pr[ée]avis|notice|within|dans\s+les|at\s+least|au\s+moins"
    r"|euribor|libor|d[ée]lai)\b[^.]{0,40}$",
    re.IGNORECASE,
)
_EXCLUDED_AFTER = re.compile(
    r"^\W*(?:à\s+l['\u2019]avance|prior|notice|in\s+advance)", re.IGNORECASE
)
_START_AFTER = re.compile(
    rf"^\W*(?:à\s+compter\s+du|à\s+partir\s+du|from|commencing\s+on|beginning\s+on)\s+{_D}",
    re.IGNORECASE,
)
_START_BEFORE = re.compile(
    rf"(?:prend\s+effet|prendra\s+effet|commence|débute|entre\s+en\s+vigueur|effective"
    rf"|starts?|commenc(?:es|ing)|begins?)\s+(?:on\s+|as\s+of\s+)?(?:le\s+)?{_D}",
    re.IGNORECASE,
)
_TERM_HEADING = re.compile(
    r"(?im)^[^\n]{0,40}\b(?:dur[ée]e|terme|term|duration)\b[^\n]{0,40}$"
    r"|\b(?:\d+(?:\.\d+)*\.?\s+)?(?:term|duration)\s*[.:]\s",
)
_SECTION_MAX_CHARS = 1500


def add_months(start: date, months: int) -> date:
    """Calendar month arithmetic, clamping to the month's last day (31 Jan + 1 month = 28 Feb)."""
    month_index = start.month - 1 + months
    year, month = start.year + month_index // 12, month_index % 12 + 1
    return date(year, month, min(start.day, calendar.monthrange(year, month)[1]))


def _term_sections(text: str) -> list[tuple[int, int]]:
    sections = []
    for heading in _TERM_HEADING.finditer(text):
        limit = heading.end() + _SECTION_MAX_CHARS
        end = text.find("\n\n", heading.end() + 1, limit)
        sections.append((heading.start(), limit if end == -1 else min(end, limit)))
    return sections


def _duration_end(
    text: str, match: re.Match[str], signature_date: date | None
) -> tuple[date, str] | None:
    count = number_value(match.group("number"))
    if not count:
        return None
    sentence_start = max(text.rfind(".", 0, match.start()), text.rfind("\n", 0, match.start()))
    before = text[max(sentence_start + 1, match.start() - 160) : match.start()]
    after = text[match.end() : match.end() + 120]
    start_match = _START_AFTER.search(after) or _START_BEFORE.search(before)
    if start_match:
        start, rule = parse_date(start_match.group("date")), "duration_from_start"
    else:
        start, rule = signature_date, "duration_from_signature"
    if start is None:
        return None
    unit = fold_accents(match.group("unit")).lower()
    months = count if unit.startswith(("mois", "month")) else 12 * count
    # A term of N years starting on day D ends the day before D's anniversary.
    return add_months(start, months) - timedelta(days=1), rule


def derive_end_date(text: str, signature_date: date | None) -> Finding | None:
    """The contract's end date as stated by its text, or None.

    An extension ("reportée au 30 juin 2028") beats an explicit end date ("jusqu'au ..."),
    which beats a duration counted from a stated start or from the signature date.
    Within a rule family, matches inside a term/durée section win, then the earliest one.
    """
    sections: list[tuple[int, int]] | None = None

    def in_section(position: int) -> bool:
        nonlocal sections
        if sections is None:
            sections = _term_sections(text)
        return any(start <= position < end for start, end in sections)

    dates = find_dates(text)
    for family, end_rules in (("extension", _EXTENSION), ("explicit_end_date", _EXPLICIT_END)):
        candidates: list[tuple[bool, int, date, int, int]] = []
        for end_date, start, end in dates:
            context_start = max(0, start - _RULE_LOOKBACK_CHARS)
            context = text[context_start:start]
            for end_rule in end_rules:
                match = end_rule.search(context)
                if match:
                    candidates.append(
                        (not in_section(start), start, end_date, context_start + match.start(), end)
                    )
                    break
        if candidates:
            _, _, end_date, start, end = min(candidates, key=lambda item: item[:2])
            return Finding(end_date, excerpt(text, start, end), family)

    durations = _stated_durations(text, signature_date, in_section)
    if not durations:
        return None
    _, _, (end_date, rule), match = min(durations, key=lambda item: item[:2])
    return Finding(end_date, excerpt(text, match.start(), match.end()), rule)


def _stated_durations(
    text: str, signature_date: date | None, in_section: Callable[[int], bool]
) -> list[tuple[bool, int, tuple[date, str], re.Match[str]]]:
    """Each trusted "for N years/months" with the end it gives: (outside the term section,
    position, (end, rule), match)."""
    durations: list[tuple[bool, int, tuple[date, str], re.Match[str]]] = []
    for unit in _UNIT_WORD.finditer(text):
        window_start = max(0, unit.start() - 60)
        match = next(
            (
                candidate
                for candidate in _DURATION.finditer(text, window_start, unit.end())
                if candidate.end() == unit.end()
            ),
            None,
        )
        if match is None:
            continue
        before = text[max(0, match.start() - 60) : match.start()]
        after = text[match.end() : match.end() + 60]
        if _EXCLUDED_BEFORE.search(before) or _EXCLUDED_AFTER.search(after):
            continue
        strong = bool(_STRONG_BEFORE.search(before) or _STRONG_AFTER.search(after))
        section = in_section(match.start())
        # "pour neuf ans" is only trusted inside the article about the term.
        if not strong and not (section and _WEAK_BEFORE.search(before)):
            continue
        counted = _duration_end(text, match, signature_date)
        if counted is not None:
            durations.append((not section, match.start(), counted, match))
    return durations
