"""When a contract's initial term expires (renewal is read in ``_renewal``).

Only the sentences around anchor words ("term", "durée", "expire", "perpetual", "renew",
"reconduction") are read: the term clause of a 300-page contract is found without running
the date rules over all of it.

Confidence: an extension or explicit end date 0.90, a duration counted from a known effective
date 0.85, "perpetual" / "until terminated" 0.80, a duration counted from an effective date
known only to the month or year 0.60 (the end is then kept at that precision).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from itertools import islice
from typing import Literal

from ._common import Finding, Unknown, excerpt
from ._dates import lowered, word_starts
from ._partial import PartialDate

# Renewal moved to its own module; these names stay importable from here for older callers.
from ._renewal import Renewal as Renewal
from ._renewal import renewal as renewal
from ._terms import TermEnd, add_months, stated_end

EXPLICIT = 0.90
FROM_EFFECTIVE = 0.85
PERPETUAL = 0.80
# A term counted from an undated event in a clause that also runs it until an event ("until
# the termination of the Alliance Agreement"): no calendar end, but read less surely.
OPEN_ENDED = 0.70
FROM_PARTIAL = 0.60

_REGION_BEFORE, _REGION_AFTER = 250, 600
_REGIONS_MAX = 80
_TERM_ANCHOR = re.compile(
    r"\b(?:initial\s+term|term\b(?!s)|until\b|ending\b|duration"
    r"|dur[ée]e|expir\w*|perpetu\w*|ind[ée]termin[ée]e|until\s+terminated|anniversary"
    r"|(?:continue|remain)\s+in\s+(?:full\s+)?(?:force|effect)|prend(?:ra)?\s+fin|jusqu)",
    re.IGNORECASE,
)
_TERM_ANCHOR_LOWER = re.compile(_TERM_ANCHOR.pattern)
_PERPETUAL = re.compile(
    r"\bperpetu(?:al(?:ly)?|ity)\b|until\s+(?:it\s+is\s+|so\s+|otherwise\s+)?terminated"
    r"|until\s+(?:either|one|a)\s+party\s+terminates|indefinite(?:ly)?\b"
    r"|(?:continue|remain)\s+in\s+(?:full\s+)?(?:force|effect)(?:\s+and\s+effect)?\s+"
    r"(?:unless\s+and\s+until|until\s+(?:such\s+time|either|one|the\s+agreement\s+is))"
    r"|dur[ée]e\s+ind[ée]termin[ée]e|sans\s+limitation\s+de\s+dur[ée]e|no\s+fixed\s+term"
    r"|\bcontinue\s+unless\s+and\s+until\s+(?:either|one|a)\s+party\s+gives\s+notice",
    re.IGNORECASE,
)

# The sentence that states the term of the agreement, as CUAD's annotators read it: "The
# term of this Agreement shall be ...", "This Agreement shall continue in effect until ...",
# '"Initial Term" means ...', "TERM: November 1, 2014 to October 31, 2017".
_AGREEMENT = (
    r"(?:agreement|contract|lease|licen[cs]e|amendment|attachment|engagement|appointment|oma|jsma)"
)
_TERM_CLAUSE = re.compile(
    rf"\b(?:initial\s+)?(?:term|period)\s+(?:\([^)]{{0,40}}\)\s+)?of\s+(?:this|the)\s+(?:[\w-]+\s+){{0,3}}?"
    rf"(?:{_AGREEMENT}|cooperation)"
    r"|\bthe\s+[\"“]?(?:initial\s+)?term[\"”]?\s+(?:\([^)]{0,40}\)\s+)?(?:hereof\s+)?(?:shall|will|is)\b"
    r"|\b(?:initial\s+)?(?:term|contract\s+period|service\s+period|expiration\s+date)\b[\"”]?"
    r"\s+(?:shall\s+)?means?\b"
    r"|\b(?:this|the)\s+(?:[\w-]+\s+){0,3}?(?:agreement|contract)\s+is\s+entered\s+into\s+for"
    r"|(?:^|\n)[ \t]*(?:\d+(?:\.\d+)*\.?\s+)?(?:term|expiration\s+date|termination\s+date"
    r"|contract\s+end)\s*:|(?:^|\n)[ \t]*term\s+of\s+execution\b",
    re.IGNORECASE,
)
# Whatever its subject ("Agent's appointment", "It"), the sentence that names the Initial Term
# states it ('... for three years thereafter (the "Initial Term")'), as does "[it] shall have a
# duration of two years". Checked at the key word only: one more alternative in the clause
# pattern, searched around every "term", costs a quarter of its time.
_NAMED_TERM_AT = re.compile(r"term[\"”]\)|(?:duration|term)\s+of\b", re.IGNORECASE)
_NAMED_TERM_BEFORE = re.compile(
    r"(?:\((?:such\s+\w+(?:\s+period)?,?\s+)?(?:the\s+)?[\"“](?:initial\s+)?"
    r"|\bhave\s+an?\s+(?:initial\s+)?)$",
    re.IGNORECASE,
)
# "This Agreement ... shall continue": the verb is found first (it is rarer), then its subject.
_TERM_VERB = re.compile(
    r"\b(?:shall|will|is|to)\s+(?:[\w,-]+\s+){0,4}?(?:continue|remain|expire|end|terminate"
    r"|be\s+in\s+(?:full\s+)?(?:effect|force)|be\s+for|have\s+an?\s+(?:initial\s+)?(?:term|duration)"
    r"|(?:be|remain)\s+valid|govern|extend|(?:be|remain)\s+effective\s+(?:for|until|through))\b",
    re.IGNORECASE,
)
_TERM_VERB_LOWER = re.compile(_TERM_VERB.pattern)
_SUBJECT_REACH = 260
_CLAUSE_KEYWORD = re.compile(
    r"term|period|expiration|contract\s+end|entered\s+into\s+for|duration", re.I
)
_CLAUSE_WORDS = ("term", "period", "expiration", "contract", "entered", "duration")
_AGREEMENT_SUBJECT = re.compile(
    rf"\b(?:this|the)\s+(?:[\w-]+\s+){{0,3}}?{_AGREEMENT}\b", re.IGNORECASE
)
# The verb must be the first after the subject, or follow its start ("shall commence on the
# Effective Date and shall continue ...").
_OTHER_VERB = re.compile(
    r"[.;]|\b(?:shall|will|is|may|must|can)\s+(?!commence|begin|become|(?:be\s+)?effective|take|come)",
    re.IGNORECASE,
)
# "during the term of this Agreement" names the term, it does not state it.
_MENTION_BEFORE = re.compile(
    r"\b(?:during|for|throughout|of|after|within|beyond|under|in|by|upon|on|before|to|until"
    r"|following|remainder|prior|be|is)\s+(?:(?:the|its|such|any|respective|then[\s-]current)\s+)*$",
    re.IGNORECASE,
)
_CLAUSE_BEFORE, _CLAUSE_AFTER = 300, 700
_CLAUSES_MAX = 12
# A blank line ends a clause, unless it opens a list ("the earlier of:\n\n(a) ...").
_CLAUSE_END = re.compile(r"\.\s|(?<![:;,])\n\s*\n")
# What a term clause without a date or duration says when it runs until an event or a notice.
_OPEN_ENDED = re.compile(
    r"\buntil\b(?=[^.;]{0,80}?(?:terminat|expir|complet|perform|cease|no\s+longer|notice))"
    r"(?!\s+(?:the\s+)?expiration\s+of\s+the\s+(?:initial\s+)?term)"
    r"|(?:thereafter|indefinitely),?\s+unless"
    r"|\bfor\s+(?:so|as)\s+long\s+as\b|\bas\s+long\s+as\b|indefinite|unlimited"
    r"|perpetu|\bwhen\s+terminated"
    r"|\bthrough\s+the\s+(?:completion|expiration|termination)|\bupon\s+the\s+(?:completion"
    r"|expiration|termination)"
    # "shall end on the 60th day following a written notice from one party to the other"
    r"|\bfollowing\s+(?:a\s+|the\s+|such\s+)?(?:written\s+)?notice\b",
    re.IGNORECASE,
)
# "shall terminate upon the Trust's payment", "shall expire if the Adviser ceases to serve": an
# event ends the contract, no date does. Termination for cause sits in every contract, so this
# is read only where nothing speaks of a fixed term.
_EVENT_END = re.compile(
    r"\b(?:shall|will)\s+(?:automatically\s+)?(?:terminate|expire)\s*:?\s*(?:\(\w\)\s+)?"
    r"(?:(?:automatically\s+)?(?:if|when|upon|on)\b(?!\s+(?:the\s+)?(?:date|expiration|end"
    r"|earl|lat|first|receipt|\d|[a-z]+\s+\d|(?:either|a|any|one)\s+party))"
    r"|at\s+the\s+option\s+of)",
    re.IGNORECASE,
)
_FIXED_TERM = re.compile(
    r"initial\s+(?:term|period)|renewal\s+(?:term|period)|expiration\s+of\s+the\s+term",
    re.IGNORECASE,
)
# An explicit end stated next to the duration ("an Initial Term of three (3) years. The Term
# shall commence on July 23, 2013 and shall expire on July 22, 2016") is the one to show.
_NEXT_CLAUSE_REACH = 300
_EXPLICIT_RULES = frozenset({"extension", "explicit_end_date", "term_clause_date", "year_end"})

# "shall survive indefinitely", "shall continue on a year to year basis until terminated":
# what outlives the term, or the renewals after it, not the initial term.
_NOT_THE_TERM = re.compile(r"surviv\w*|renew\w*|basis|extended\s+term|thereafter|remain\s+$", re.I)
_GRANT = re.compile(r"^[\w\s,-]{0,50}?\b(?:licen[cs]e|right|access|grant)", re.IGNORECASE)


@dataclass(frozen=True)
class Expiration:
    """The end of the initial term: a date (possibly partial), or "perpetual" for a contract
    that runs until terminated. ``term_months`` is the initial term when stated as a duration."""

    kind: Literal["date", "perpetual"]
    date: PartialDate | None = None
    term_months: int | None = None


def _regions(text: str) -> list[tuple[int, int]]:
    """Windows around the anchor words, merged, at most a few dozen."""
    regions: list[tuple[int, int]] = []
    low = lowered(text)  # scanned without IGNORECASE: a third faster
    anchors = _TERM_ANCHOR_LOWER.finditer(low) if low is not None else _TERM_ANCHOR.finditer(text)
    for match in anchors:
        start, end = max(0, match.start() - _REGION_BEFORE), match.end() + _REGION_AFTER
        if regions and start <= regions[-1][1]:
            regions[-1] = (regions[-1][0], max(regions[-1][1], end))
        elif len(regions) >= _REGIONS_MAX:
            break
        else:
            regions.append((start, end))
    return [(start, min(end, len(text))) for start, end in regions]


def _dated(found: Finding, effective: PartialDate | None) -> Finding | Unknown:
    term_end: TermEnd = found.value
    if term_end.end is not None:
        confidence = EXPLICIT if found.rule in _EXPLICIT_RULES else FROM_EFFECTIVE
        value = Expiration("date", PartialDate.of(term_end.end), term_end.months)
        return replace(found, value=value, confidence=confidence)
    if found.rule == "duration_from_unknown_start" or effective is None:
        return Unknown("start_unknown", found.evidence, found.start, found.end)
    if found.rule == "year_end_of_start":
        value = Expiration("date", PartialDate(effective.year, 12, 31))
        return replace(found, value=value, confidence=FROM_PARTIAL)
    # The effective date is partial: count from its first and its last possible day and keep
    # what both anniversaries share (the term ends the day before the anniversary, a
    # difference a month- or year-precise date cannot show anyway).
    if term_end.months is None:
        return Unknown("start_unknown", found.evidence, found.start, found.end)
    try:
        first = add_months(effective.earliest, term_end.months)
        last = add_months(effective.latest, term_end.months)
    except ValueError:  # an end beyond the year 9999 is no date
        return Unknown("start_unknown", found.evidence, found.start, found.end)
    if first.year != last.year:
        return Unknown("start_unknown", found.evidence, found.start, found.end)
    month = first.month if first.month == last.month else None
    value = Expiration("date", PartialDate(first.year, month), term_end.months)
    return replace(found, value=value, confidence=FROM_PARTIAL)


def _clause(text: str, position: int) -> tuple[int, int]:
    """The sentence around ``position``: a blank line ends one as well as a full stop."""
    low = max(0, position - _CLAUSE_BEFORE)
    start = low
    for boundary in _CLAUSE_END.finditer(text, low, position):
        start = boundary.end()
    after = _CLAUSE_END.search(text, position, position + _CLAUSE_AFTER)
    return start, after.start() + 1 if after else min(len(text), position + _CLAUSE_AFTER)


_MAX_ANCHORS = 1500


def _clause_anchors(text: str) -> list[int]:
    # The clause pattern is tried only around its key words (scanning it over a whole
    # contract costs five times more), the verbs in the lower-cased text (a third faster).
    positions: list[int] = []
    # A real contract says "term" a few hundred times; a text saying it a million times is
    # not given a million looks (1 MB of "term" took 4 s).
    for keyword in islice(word_starts(text, _CLAUSE_WORDS, _CLAUSE_KEYWORD), _MAX_ANCHORS):
        if match := _TERM_CLAUSE.search(text, max(0, keyword - 60), keyword + 80):
            positions.append(match.start())
        elif _NAMED_TERM_AT.match(text, keyword) and (
            named := _NAMED_TERM_BEFORE.search(text, max(0, keyword - 45), keyword)
        ):
            positions.append(named.start())
    lower = lowered(text)
    verbs = _TERM_VERB_LOWER.finditer(lower) if lower is not None else _TERM_VERB.finditer(text)
    for verb in islice(verbs, _MAX_ANCHORS):
        reach = max(0, verb.start() - _SUBJECT_REACH)
        # The nearest subject before the verb is the one it belongs to.
        subject = None
        for candidate in _AGREEMENT_SUBJECT.finditer(text, reach, verb.start()):
            subject = candidate
        if subject is not None and not _OTHER_VERB.search(text, subject.end(), verb.start()):
            positions.append(subject.start())
    return sorted(set(positions))


def _term_clauses(text: str) -> list[tuple[int, int]]:
    """The sentences that state the term, in reading order, at most a dozen."""
    spans: list[tuple[int, int]] = []
    for position in _clause_anchors(text):
        if _MENTION_BEFORE.search(text, max(0, position - 30), position):
            continue
        start, end = _clause(text, position)
        if spans and start < spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
            continue
        spans.append((start, end))
        if len(spans) >= _CLAUSES_MAX:
            break
    return spans


def _perpetual(text: str, match: re.Match[str], confidence: float = PERPETUAL) -> Finding:
    return Finding(
        Expiration("perpetual"),
        excerpt(text, match.start(), match.end()),
        "perpetual",
        match.start(),
        match.end(),
        confidence,
    )


def _from_term_clauses(text: str, effective: PartialDate | None) -> Finding | Unknown | None:
    """The end the term clause states; "perpetual" when the clauses name no end but run
    until an event or a notice (CUAD's annotators answer "perpetual" there too)."""
    start = effective.exact if effective is not None else None
    undated: Unknown | None = None
    open_ended: re.Match[str] | None = None
    event_end: re.Match[str] | None = None
    first: Finding | None = None
    for span in _term_clauses(text):
        if first is not None and span[0] > first.end + _NEXT_CLAUSE_REACH:
            break
        found = stated_end(text, start, regions=[span], term_clause=True)
        if found is None:
            open_ended = open_ended or _OPEN_ENDED.search(text, *span)
            event_end = event_end or _EVENT_END.search(text, *span)
            continue
        dated = _dated(found, effective)
        if isinstance(dated, Finding):
            if first is None and dated.rule not in _EXPLICIT_RULES:
                first = dated
                continue
            return dated if first is None or dated.rule in _EXPLICIT_RULES else first
        if undated is None:
            # "for fifteen years from first launch or until the last patent expires"
            undated = dated
            open_ended = open_ended or _OPEN_ENDED.search(text, *span)
    if first is not None:
        return first
    if undated is not None:
        return undated if open_ended is None else _perpetual(text, open_ended, OPEN_ENDED)
    if open_ended is not None:
        return _perpetual(text, open_ended)
    if event_end is not None and not _FIXED_TERM.search(text):
        return _perpetual(text, event_end, OPEN_ENDED)
    return None


def expiration(text: str, effective: PartialDate | None) -> Finding | Unknown:
    """When the initial term ends: an :class:`Expiration` of kind "date" (an explicit end, or
    a duration counted from ``effective``) or "perpetual"; Unknown("start_unknown") when the
    term is counted from a start nobody dated, Unknown("not_found") when no term is stated.
    Never raises."""
    from_clause = _from_term_clauses(text, effective)
    if from_clause is not None:
        return from_clause
    regions = _regions(text)
    start = effective.exact if effective is not None else None
    found = stated_end(text, start, regions=regions)
    if found is not None:
        return _dated(found, effective)
    for region_start, region_end in regions:
        for perpetual in _PERPETUAL.finditer(text, region_start, region_end):
            # "a perpetual, royalty-free licence" is a grant, not the term of the agreement.
            if not _GRANT.search(
                text, perpetual.end(), perpetual.end() + 60
            ) and not _NOT_THE_TERM.search(text, max(0, perpetual.start() - 80), perpetual.start()):
                return _perpetual(text, perpetual)
    return Unknown("not_found")
