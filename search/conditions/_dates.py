"""Dates in a query: "signés avant 2015", "signed before 2020-01-01", "ending before 2027",
"qui expirent avant fin 2026", "signed between 2018 and 2020".

A date is read only right after a verb or noun that says which date it is (signed, conclu,
signature date; ending, expirant, échéance, end date...): "avant 2015" alone is left in the
text, and a date after an end or expiry verb is never read as a signature date. Patterns run
on RE2 over the folded words (linear time in the query's length).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import re2  # type: ignore[import-untyped]  # google-re2 ships no type hints

from search.conditions._tokens import Words

MONTHS = {
    "janvier": 1, "january": 1, "jan": 1, "fevrier": 2, "february": 2, "feb": 2, "fev": 2,
    "mars": 3, "march": 3, "avril": 4, "april": 4, "apr": 4, "mai": 5, "may": 5, "juin": 6,
    "june": 6, "jun": 6, "juillet": 7, "july": 7, "jul": 7, "aout": 8, "august": 8,
    "aug": 8, "septembre": 9, "september": 9, "sept": 9, "sep": 9, "octobre": 10,
    "october": 10, "oct": 10, "novembre": 11, "november": 11, "nov": 11, "decembre": 12,
    "december": 12, "dec": 12,
}  # fmt: skip
_MONTH = "(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + ")"
_YEAR = r"(?:19|20)\d\d"
_DAY = r"(?:1er|[0-3]?\d)(?:st|nd|rd|th)?"
_END_OF = (
    r"(?:(?:la )?fin (?:de l annee |d annee |de l exercice |de )?|(?:the )?end of (?:the year )?)"
)
_START_OF = (
    r"(?:(?:le )?debut (?:de l annee |d annee |de )?"
    r"|(?:the )?(?:beginning|start) of (?:the year )?)"
)
DATE = (
    rf"(?:\d{{4}} [01]?\d [0-3]?\d|[0-3]?\d [01]?\d \d{{4}}|{_DAY} {_MONTH} {_YEAR}"
    rf"|{_MONTH} {_DAY} {_YEAR}|{_MONTH} (?:de |of )?{_YEAR}|{_END_OF}{_YEAR}|{_START_OF}{_YEAR}"
    rf"|(?:l annee |the year )?{_YEAR})"
)
# Each way of placing a date, as folded words -> how it bounds the range.
PREPOSITIONS = {
    "before": ("avant", "before", "prior to", "earlier than", "anterieurement a",
               "anterieur a", "anterieure a", "anterieurs a", "anterieures a"),
    "after": ("apres", "after", "later than", "posterieurement a", "posterieur a",
              "posterieure a", "posterieurs a", "posterieures a"),
    "since": ("depuis", "since", "from", "a partir de", "a partir du", "a compter de",
              "a compter du", "as of", "as from", "starting", "on or after"),
    "until": ("until", "till", "by", "on or before", "no later than", "jusqu a", "jusqu au",
              "jusqu en", "au plus tard", "au plus tard le", "au plus tard en", "d ici",
              "d ici a", "d ici la"),
    "in": ("en", "in", "during", "au cours de", "au cours du", "pendant", "courant"),
    "on": ("le", "on"),
}  # fmt: skip
_KIND = {words: kind for kind, all_words in PREPOSITIONS.items() for words in all_words}
_PREP = "(?:" + "|".join(sorted(_KIND, key=len, reverse=True)) + ")"
_ARTICLE = r"(?:(?:le|la|l|the) )?"
_VERB_PREFIX = (
    r"(?:(?:qui|that|which|dont) )?"
    r"(?:(?:ont ete|a ete|have been|has been|were|was|are|is|sont|est|been|ete) )?"
)
VERBS = {
    "signature_date": (
        r"signe|signes|signee|signees|signed|signing date|signature date|signature"
        r"|date de signature|date of signature|conclus?|conclues?|concluded|executed"
        r"|entered into"
    ),
    "end_date": (
        r"expir\w*|expiry date|expiry|expiration date|expiration|end date|ending|ends|end"
        r"|terminating|terminates|terminate|termination date|prenant fin|prennent fin"
        r"|prend fin|se terminant|se terminent|se termine|finissant|finissent"
        r"|(?:arrivant|arrivent|arrive|venant|viennent|vient) a (?:echeance|expiration|terme)"
        r"|echeance|date de fin|date d echeance|date d expiration|date de la fin"
        r"|runs until|running until|lasting until"
    ),
}
_BETWEEN = (
    rf"(?:entre|between) {_ARTICLE}(?P<b1>{DATE}) (?:et|and) {_ARTICLE}(?P<b2>{DATE})"
    rf"|(?:from|de|du) {_ARTICLE}(?P<f1>{DATE}) (?:to|au|a|until|jusqu au|jusqu a) "
    rf"{_ARTICLE}(?P<f2>{DATE})"
)
_ONE_OR_TWO = (
    rf"(?P<p1>{_PREP}) {_ARTICLE}(?P<d1>{DATE})"
    rf"(?: (?:et|and|but|mais) (?P<p2>{_PREP}) {_ARTICLE}(?P<d2>{DATE}))?"
)
PATTERNS = {
    field: re2.compile(rf"\b{_VERB_PREFIX}(?:{verbs}) {_ARTICLE}(?:{_BETWEEN}|{_ONE_OR_TWO})\b")
    for field, verbs in VERBS.items()
}


@dataclass(frozen=True)
class Span:
    """A date as a span of days; ``marker`` "end" for "fin 2026", "start" for "début 2026"."""

    first: date
    last: date
    marker: str = ""


_ISO = re.compile(r"(\d{4}) (\d{1,2}) (\d{1,2})")
_DMY = re.compile(r"(\d{1,2}) (\d{1,2}) (\d{4})")
_DAY_MONTH = re.compile(r"(1er|\d{1,2})(?:st|nd|rd|th)? ([a-z]+) (\d{4})")
_MONTH_DAY = re.compile(r"([a-z]+) (\d{1,2})(?:st|nd|rd|th)? (\d{4})")
_MONTH_YEAR = re.compile(r"([a-z]+) (?:de |of )?(\d{4})")
_YEAR_ONLY = re.compile(r"(?:l annee |the year )?(\d{4})")


def parse_span(text: str) -> Span | None:
    """The days a folded date expression names; None for an impossible date."""
    try:
        return _span(text)
    except ValueError:  # 31 February, month 13
        return None


def _span(text: str) -> Span | None:
    if match := _ISO.fullmatch(text):
        day = date(int(match[1]), int(match[2]), int(match[3]))
        return Span(day, day)
    if match := _DMY.fullmatch(text):  # day first, as French and British write it
        day = date(int(match[3]), int(match[2]), int(match[1]))
        return Span(day, day)
    if (match := _DAY_MONTH.fullmatch(text)) and match[2] in MONTHS:
        day = date(int(match[3]), MONTHS[match[2]], 1 if match[1] == "1er" else int(match[1]))
        return Span(day, day)
    if (match := _MONTH_DAY.fullmatch(text)) and match[1] in MONTHS:
        day = date(int(match[3]), MONTHS[match[1]], int(match[2]))
        return Span(day, day)
    if (match := _MONTH_YEAR.fullmatch(text)) and match[1] in MONTHS:
        first = date(int(match[2]), MONTHS[match[1]], 1)
        following = date(first.year + first.month // 12, first.month % 12 + 1, 1)
        return Span(first, following - timedelta(days=1))
    year = int(text[-4:])
    whole = Span(date(year, 1, 1), date(year, 12, 31))
    if text.startswith(("fin", "la fin", "end", "the end")):
        return Span(whole.last, whole.last, "end")
    if text.startswith(("debut", "le debut", "beginning", "the beginning", "start", "the start")):
        return Span(whole.first, whole.first, "start")
    return whole if _YEAR_ONLY.fullmatch(text) else None


def bounds(kind: str, span: Span) -> dict[str, date]:
    """The inclusive bounds a preposition puts on a date: "before 2015" -> up to 2014-12-31,
    "avant fin 2026" -> up to 2026-12-31, "after 2015" -> from 2016-01-01, "in 2025" -> the
    year."""
    one_day = timedelta(days=1)
    if kind == "before":
        return {"before": span.last if span.marker == "end" else span.first - one_day}
    if kind == "after":
        return {"after": span.first if span.marker == "start" else span.last + one_day}
    if kind == "since":
        return {"after": span.first}
    if kind == "until":
        return {"before": span.last}
    return {"after": span.first, "before": span.last}  # in, on


def range_of(groups: dict[str, Any]) -> dict[str, date] | None:
    """The range one match of :data:`PATTERNS` says, or None when a date is impossible."""
    for left, right in (("b1", "b2"), ("f1", "f2")):
        if groups.get(left):
            first, last = parse_span(groups[left]), parse_span(groups[right])
            if first is None or last is None:
                return None
            return {"after": first.first, "before": last.last}
    found: dict[str, date] = {}
    for prep, when in (("p1", "d1"), ("p2", "d2")):
        if not groups.get(prep):
            continue
        span = parse_span(groups[when])
        if span is None:
            return None
        for key, value in bounds(_KIND[groups[prep]], span).items():
            # Two bounds on the same side ("in 2015 and in 2016") widen the range, never
            # narrow it: a contract of either is kept (the earliest start, the latest end).
            earlier = found.get(key)
            widest = min if key == "after" else max
            found[key] = value if earlier is None else widest(earlier, value)
    return found or None


def read_dates(
    words: Words, fields: Collection[str]
) -> list[tuple[str, dict[str, date], list[int]]]:
    """(field, its bounds, word indexes) for each dated condition; one that contradicts an
    earlier one on the same field (after past before) is left in the text."""
    found: list[tuple[str, dict[str, date], list[int]]] = []
    merged: dict[str, dict[str, date]] = {}
    for field, pattern in PATTERNS.items():
        if field not in fields:
            continue
        text, indexes = words.free()
        for match in pattern.finditer(text):
            covered = words.covered(match.start(), match.end(), indexes)
            window = range_of(match.groupdict())
            if not covered or window is None or words.negated(min(covered)):
                continue
            combined = {**merged.get(field, {}), **window}
            if set(window) & set(merged.get(field, {})) or _reversed(combined):
                continue
            merged[field] = combined
            words.used.update(covered)
            found.append((field, window, covered))
    return found


def _reversed(window: dict[str, date]) -> bool:
    return "after" in window and "before" in window and window["after"] > window["before"]
