"""The one place for term rules: where a contract says it ends.

An extension ("reportée au 30 juin 2028") beats an explicit end date ("jusqu'au ..."), which
beats a duration ("for a term of five (5) years") counted from a stated start, from the start
the caller knows (signature or effective date), or from a start the text does not date ("from
the first commercial sale": the end is then unknown, never counted from the wrong day).

A term of N years from day D runs through the day before D's N-th anniversary (a lawyer's
reading: a two-year term from 22 January 2007 ends on 21 January 2009); a term that runs
"until the N-th anniversary" ends on the anniversary itself.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from ._common import Finding, excerpt, fold_accents
from ._dates import DATE_PHRASE, NUMBER, find_dates, number_value, parse_date

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
    r"\b(?:until|through|till)\s+(?:and\s+including\s+|to\s+)?",
    # "in no event later than February 28, 2013": the latest the term can run.
    r"\bin\s+no\s+event\s+later\s+than\s+",
    # "TERM: November 01, 2014 to October 31, 2017": a period whose start is written bare.
    # (the start's year is enough to see it: the whole date phrase costs a scan per date).
    r"\b(?:19|20)\d{2}\s*,?\s*(?:to|through(?:\s+to)?|until|[-\u2013])\s+",
    r"\b(?:ends?|ending|expires?|expiring|terminates?|terminating|end|expire|terminate|conclud(?:e|es|ing))"
    r"\s+(?:on|upon|as\s+of|at)\s+(?:the\s+)?",
    r"\bup\s+to\s+(?:and\s+including\s+)?",
    r"\b(?:and\s+)?ending\s+",
    r"\b(?:expires?|expiring|conclud(?:e|es|ing)|ends?\s+at|terminat(?:e|es|ing))\s+",
    r"\bexpiration\s+date\s+(?:shall\s+be|is|of)?\s*:?\s*",
)  # fmt: skip
_EXTENSION = [re.compile(rf"(?:{rule})$", re.IGNORECASE) for rule in _EXTENSION_RULES]
_EXPLICIT_END = [re.compile(rf"(?:{rule})$", re.IGNORECASE) for rule in _EXPLICIT_END_RULES]
_RULE_LOOKBACK_CHARS = 120
# In the term clause, a date that no rule introduces is its end unless it is the start.
_START_WORDS = re.compile(
    r"(?:commenc\w*|begin\w*|start\w*|effective|dated|as\s+of|from|since|entered\s+into"
    r"|made|signed|executed|du|[àa]\s+compter\s+du|le|into\s+force)"
    r"\s+(?:on\s+|upon\s+|as\s+of\s+|from\s+)?(?:the\s+)?$",
    re.IGNORECASE,
)

_NAMES_A_START = re.compile(
    r"\s*\((?:such\s+date,?\s+)?(?:the\s+)?[\"“][\w\s-]{0,30}?(?:effective|commencement|start)"
    r"\s+date[\"”]",
    re.IGNORECASE,
)

_UNIT = r"(?P<unit>ans?|ann[ée]es?|mois|years?|months?)"
_DURATION = re.compile(
    rf"(?<![\w-])(?P<number>{NUMBER})[\s-]+(?:\w+\s+){{0,2}}{_UNIT}\b(?:\(s\))?", re.IGNORECASE
)
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
# Renewal periods ("successive one-year terms") are not the initial term.
_EXCLUDED_BEFORE = re.compile(
    r"\b(?:chaque|each(?!\s+(?:party|of\s+the\s+parties)\b)|essai|trial|pr[ée]avis|notice|within|dans\s+les|at\s+least|au\s+moins"
    r"|euribor|libor|d[ée]lai|successive|additional|renewal|renew(?:ed|s)?|extension|further"
    r"|subsequent|renouvel\w*|reconduction|reconduit\w*|suppl[ée]mentaires?)\b[^.]{0,40}$"
    # What outlives the term ("during the Term and for one (1) year thereafter", "shall
    # survive ... for five (5) years") is no term of the agreement.
    r"|\b(?:the\s+term\s*,?\s+and|surviv\w*)\b[^.]{0,40}$"
    r"|\b(?:expiration|termination)\s+(?:or\s+\w+\s+)?of\s+(?:this|the)\s+agreement\s+for\b"
    r"[^.]{0,25}$",
    re.IGNORECASE,
)
_EXCLUDED_AFTER = re.compile(
    r"^\W*(?:à\s+l['\u2019]avance|prior|notice|in\s+advance|(?:period\s+)?(?:after|following)"
    r"\s+(?:the\s+)?(?:expiration|termination|cancellation))",
    re.IGNORECASE,
)
_START_AFTER = re.compile(
    rf"^\W*(?:à\s+compter\s+du|à\s+partir\s+du|from|(?:commencing|beginning|starting)\s+(?:on|as\s+of)"
    rf")\s+(?:the\s+)?{_D}",
    re.IGNORECASE,
)
_START_BEFORE = re.compile(
    rf"(?:prend\s+effet|prendra\s+effet|commence|débute|entre\s+en\s+vigueur|effective"
    rf"|comes?\s+into\s+force"
    rf"|starts?|commenc(?:es|ing)|begins?)\s+(?:on\s+|upon\s+|as\s+of\s+)?(?:le\s+|the\s+)?{_D}",
    re.IGNORECASE,
)
# The event a duration is counted from, when it is named rather than dated.
_REFERENCE_AFTER = re.compile(
    r"^[\s,(]*(?:(?:commencing|beginning|starting|running|measured)\s*(?:on|from|with|as\s+of|upon)?"
    r"|from|after|following|of|à\s+compter\s+d[eu]?|à\s+partir\s+d[eu]?|qui\s+suivent)"
    r"\s+(?P<reference>[^.;]{1,80})",
    re.IGNORECASE,
)
_REFERENCE_BEFORE = re.compile(
    r"(?:commenc\w*|begin\w*|start\w*)\s+(?:on|upon|as\s+of|from|with)\s+(?P<reference>[^.;]{1,80})$",
    re.IGNORECASE,
)
_KNOWN_START = re.compile(
    r"^(?:the\s+|its\s+|sa\s+|la\s+|l['\u2019])?(?:effective\s+date|date\s+(?:hereof|of\s+th(?:is|e)"
    r"|first|of\s+execution|of\s+signature|on\s+which\s+this\s+agreement|this\s+agreement)"
    r"|execution|signature|date\s+d['\u2019](?:effet|entr[ée]e\s+en\s+vigueur)|entr[ée]e\s+en"
    r"\s+vigueur|this\s+agreement|the\s+agreement|agreement\s+date|présent|signing"
    r"|commencement\s+date|date\s+(?:it\s+is\s+|this\s+\w+\s+is\s+)?(?:signed|executed)"
    r"|(?:full\s+)?execution|date\s+first\s+(?:above\s+)?(?:written|set\s+forth)"
    r"|date\s+of\s+(?:its\s+execution|(?:the\s+)?effective\s+date))",
    re.IGNORECASE,
)
# Whose duration it is: a sentence about the agreement or its term, unless the article is.
_SUBJECT = re.compile(
    r"\b(?:agreement|contract|term|contrat|convention|dur[ée]e|bail|lease|accord)\b", re.IGNORECASE
)
_TERM_HEADING = re.compile(
    r"(?im)^[^\n]{0,40}\b(?:dur[ée]e|terme|term|duration)\b[^\n]{0,40}$"
    r"|\b(?:\d+(?:\.\d+)*\.?\s+)?(?:term|duration)\s*[.:]\s",
)
_SECTION_MAX_CHARS = 1500
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "fifteenth": 15, "twentieth": 20,
}  # fmt: skip
_ORDINAL_SUFFIX = r"\s?(?:s\s?t|n\s?d|r\s?d|t\s?h)"
_ANNIVERSARY_OF = (
    rf"(?P<ordinal>{'|'.join(_ORDINALS)}|\d{{1,2}}{_ORDINAL_SUFFIX})"
    rf"(?:\s+\(\d+(?:{_ORDINAL_SUFFIX})?\))?"
    rf"|(?P<count>{NUMBER})[\s-]+years?"
)
_ANNIVERSARY = re.compile(
    rf"\b(?:until|on|through|expire\w*\s+(?:on|at)|end\w*\s+on)\s+the\s+(?:{_ANNIVERSARY_OF})"
    r"\s+anniversary\s+of\s+(?P<reference>[^.;]{1,80})",
    re.IGNORECASE,
)
# Inside the term clause, "the earlier of (a) the fifth anniversary of the Effective Date".
_CLAUSE_ANNIVERSARY = re.compile(
    rf"\bthe\s+(?P<before>day\s+(?:prior|before)\s+(?:to\s+)?the\s+)?(?:{_ANNIVERSARY_OF})"
    r"\s+anniversary\s+of\s+(?P<reference>[^.;]{1,80})",
    re.IGNORECASE,
)

# "until the end of the current calendar year", "through December 31 of the same year", "until
# the end of 2006": the year is written, or it is the year the term starts in.
_YEAR_END = re.compile(
    r"\b(?:until|through|till|to|(?:expire|end|terminate)s?\s+(?:at|on|upon))\s+(?:the\s+)?"
    r"(?:(?:end|close|last\s+day)\s+of\s+(?:the\s+)?|december\s+31(?:st)?\s+of\s+(?:the\s+)?)"
    r"(?:(?P<year>(?:19|20)\d{2})\b|(?:(?P<current>current|then[\s-]current|same)\s+)?"
    r"(?:calendar\s+)?year\b(?:\s+(?P<own>(?:19|20)\d{2})\b)?"
    r"(?P<start_year>\s+in\s+which\s+(?:this\s+agreement|the\s+effective\s+date))?)",
    re.IGNORECASE,
)

_YEAR_END_WORDS = re.compile(r"of\s+(?:the\s+)?(?:current|calendar|same|year|(?:19|20)\d)", re.I)


@dataclass(frozen=True)
class TermEnd:
    """When a stated term ends. ``end`` is None when the term is counted from an event the
    text does not date; ``months`` is the duration when the end comes from one."""

    end: date | None
    months: int | None = None


def add_months(start: date, months: int) -> date:
    """Calendar month arithmetic, clamping to the month's last day (31 Jan + 1 month = 28 Feb)."""
    month_index = start.month - 1 + months
    year, month = start.year + month_index // 12, month_index % 12 + 1
    return date(year, month, min(start.day, calendar.monthrange(year, month)[1]))


def _shift(start: date, months: int, *, through: bool) -> date | None:
    try:
        end = add_months(start, months)
        return end - timedelta(days=1) if through else end
    except (ValueError, OverflowError):  # years beyond 9999 on absurd durations
        return None


def _known_reference(reference: str) -> bool:
    # "three years from and including the date of this Agreement"
    reference = re.sub(r"^(?:and\s+)?(?:after|including)\s+", "", reference.strip())
    return bool(_KNOWN_START.match(reference))


class _Scope:
    """The parts of the text the rules read, and the term sections inside them. A
    ``term_clause`` scope is the sentence that states the term: all of it is trusted."""

    def __init__(
        self, text: str, regions: Sequence[tuple[int, int]] | None, *, term_clause: bool = False
    ) -> None:
        self.text = text
        self.regions = list(regions) if regions is not None else [(0, len(text))]
        self.term_clause = term_clause
        self._sections: list[tuple[int, int]] | None = None

    def in_section(self, position: int) -> bool:
        if self.term_clause:
            return True
        if self._sections is None:
            self._sections = []
            for start, end in self.regions:
                for heading in _TERM_HEADING.finditer(self.text, start, end):
                    limit = heading.end() + _SECTION_MAX_CHARS
                    stop = self.text.find("\n\n", heading.end() + 1, limit)
                    self._sections.append((heading.start(), limit if stop == -1 else stop))
        return any(start <= position < end for start, end in self._sections)


def _explicit_end(scope: _Scope) -> Finding | None:
    text = scope.text
    dates = [found for start, end in scope.regions for found in find_dates(text, start, end)]
    for family, end_rules in (("extension", _EXTENSION), ("explicit_end_date", _EXPLICIT_END)):
        candidates: list[tuple[bool, int, date, int, int]] = []
        for end_date, start, end in dates:
            context_start = max(0, start - _RULE_LOOKBACK_CHARS)
            context = text[context_start:start]
            for end_rule in end_rules:
                match = end_rule.search(context)
                if match:
                    outside = not scope.in_section(start)
                    candidates.append(
                        (outside, start, end_date, context_start + match.start(), end)
                    )
                    break
        if candidates:
            _, _, end_date, start, end = min(candidates, key=lambda item: item[:2])
            return Finding(TermEnd(end_date), excerpt(text, start, end), family, start, end)
    if scope.term_clause:
        ends = [
            (end_date, start, end)
            for end_date, start, end in dates
            if not _START_WORDS.search(text, max(0, start - 40), start)
            # A filing stamp ("Source: ACME INC, 8-K, 8/8/2019") dates the filing.
            and "Source:" not in text[text.rfind("\n", 0, start) + 1 : start]
            # "September 2, 2019 (such date, the "Effective Date")" is where the term starts.
            and not _NAMES_A_START.match(text, end, end + 60)
        ]
        if ends:
            end_date, start, end = max(ends)
            evidence = excerpt(text, start, end)
            return Finding(TermEnd(end_date), evidence, "term_clause_date", start, end)
    return None


def _sentence_before(text: str, position: int) -> str:
    sentence_start = max(text.rfind(".", 0, position), text.rfind("\n", 0, position))
    return text[max(sentence_start + 1, position - 160) : position]


def _duration_end(text: str, match: re.Match[str], start_date: date | None) -> tuple[TermEnd, str]:
    count = number_value(match.group("number")) or 0
    unit = fold_accents(match.group("unit")).lower()
    months = count if unit.startswith(("mois", "month")) else 12 * count
    before = _sentence_before(text, match.start())
    after = text[match.end() : match.end() + 120]
    dated = _START_AFTER.search(after) or _START_BEFORE.search(before)
    if dated:
        start, rule = parse_date(dated.group("date")), "duration_from_start"
    else:
        named = _REFERENCE_AFTER.search(after) or _REFERENCE_BEFORE.search(before)
        if named and not _known_reference(named.group("reference")):
            return TermEnd(None, months), "duration_from_unknown_start"
        start, rule = start_date, "duration_from_signature"
    end = _shift(start, months, through=True) if start is not None else None
    return TermEnd(end, months), rule


def _stated_durations(scope: _Scope, start_date: date | None) -> list[Finding]:
    """Each trusted "for N years/months" with the end it gives, best first: inside the term
    section, then earliest."""
    text = scope.text
    ranked: list[tuple[bool, int, Finding]] = []
    for region_start, region_end in scope.regions:
        for unit in _UNIT_WORD.finditer(text, region_start, region_end):
            window_start = max(0, unit.start() - 60)
            match = next(
                (
                    candidate
                    for candidate in _DURATION.finditer(text, window_start, unit.end())
                    if candidate.end() in (unit.end(), unit.end() + 3)
                ),
                None,
            )
            if match is None or not number_value(match.group("number")):
                continue
            before = text[max(0, match.start() - 60) : match.start()]
            after = text[match.end() : match.end() + 60]
            # Searched in place: a slice would read "[Termination for Br]each" as "each".
            excluded = _EXCLUDED_BEFORE.search(text, max(0, match.start() - 60), match.start())
            if excluded or _EXCLUDED_AFTER.search(after):
                continue
            strong = bool(_STRONG_BEFORE.search(before) or _STRONG_AFTER.search(after))
            section = scope.in_section(match.start())
            if not section and not _SUBJECT.search(_sentence_before(text, match.start())):
                continue
            # "pour neuf ans" is only trusted inside the article about the term.
            if (
                not strong
                and not scope.term_clause
                and not (section and _WEAK_BEFORE.search(before))
            ):
                continue
            term_end, rule = _duration_end(text, match, start_date)
            evidence = excerpt(text, match.start(), match.end())
            finding = Finding(term_end, evidence, rule, match.start(), match.end())
            ranked.append((not section, match.start(), finding))
    ranked.sort(key=lambda item: item[:2])
    return [finding for _, _, finding in ranked]


def _anniversary_years(match: re.Match[str]) -> int:
    if match.group("count"):
        return number_value(match.group("count")) or 0
    ordinal = match.group("ordinal").lower()
    return _ORDINALS.get(ordinal) or int(re.sub(r"\D", "", ordinal) or 0)


def _anniversary(scope: _Scope, start_date: date | None) -> Finding | None:
    pattern = _CLAUSE_ANNIVERSARY if scope.term_clause else _ANNIVERSARY
    for start, end in scope.regions:
        for match in pattern.finditer(scope.text, start, end):
            years = _anniversary_years(match)
            if not years or years > 99:
                continue
            # The anniversary of some other event ("of the termination of a project") is no
            # term of the agreement.
            if not _known_reference(match.group("reference")):
                continue
            # "through the day prior to the second anniversary"
            through = bool(match.groupdict().get("before"))
            end_date = _shift(start_date, 12 * years, through=through) if start_date else None
            term_end = TermEnd(end_date, 12 * years)
            rule = "anniversary"
            evidence = excerpt(scope.text, match.start(), match.end())
            return Finding(term_end, evidence, rule, match.start(), match.end())
    return None


def _year_end(scope: _Scope, start_date: date | None) -> Finding | None:
    for start, end in scope.regions:
        # The pattern opens on an alternation: tried only where its key words are.
        if not _YEAR_END_WORDS.search(scope.text, start, end):
            continue
        for match in _YEAR_END.finditer(scope.text, start, end):
            written = match.group("year") or match.group("own")
            if written:
                end_date: date | None = date(int(written), 12, 31)
                rule = "year_end"
            elif match.group("current") or match.group("start_year"):
                end_date = date(start_date.year, 12, 31) if start_date else None
                rule = "year_end_of_start"
            else:  # "until the end of the year following ..." names another year
                continue
            evidence = excerpt(scope.text, match.start(), match.end())
            return Finding(TermEnd(end_date), evidence, rule, match.start(), match.end())
    return None


def stated_end(
    text: str,
    start_date: date | None,
    *,
    regions: Sequence[tuple[int, int]] | None = None,
    term_clause: bool = False,
) -> Finding | None:
    """The end of the contract's term as stated in ``text`` (only in ``regions`` when given),
    as a Finding whose value is a :class:`TermEnd`; None when the text states no term.
    ``term_clause`` says the regions are the sentences that state the term: every duration
    and date in them is then read as the term's."""
    scope = _Scope(text, regions, term_clause=term_clause)
    explicit = _explicit_end(scope) or _year_end(scope, start_date)
    if explicit is not None:
        return explicit
    durations = _stated_durations(scope, start_date)
    anniversary = _anniversary(scope, start_date)
    if anniversary is not None and (not durations or anniversary.start < durations[0].start):
        return anniversary
    return durations[0] if durations else None


def derive_end_date(text: str, signature_date: date | None) -> Finding | None:
    """The contract's end date as stated by its text, or None.

    An extension beats an explicit end date, which beats a duration counted from a stated
    start or from the signature date; within a rule family, matches inside a term/durée
    section win, then the earliest one. A duration counted from an event the text does not
    date ("from the first delivery") gives None rather than an end counted from signature.
    """
    found = stated_end(text, signature_date)
    if found is None or found.value.end is None:
        return None
    return Finding(found.value.end, found.evidence, found.rule)
