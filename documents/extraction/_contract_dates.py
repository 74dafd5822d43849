"""The agreement (signature) date and the effective date of a contract, read from its text.

Where the date is looked for, and how much each place is trusted (``Finding.confidence``):

====================================================  ==========
preamble ("dated as of", "made and entered into on",   0.95
"en date du", "conclu le") in the opening
signature block ("Fait à Lyon, le ...", "Date: ...")    0.90
definition of the "Effective Date" (fallback)           0.80
"as of the date first written above" with only an       0.70
unanchored date in the opening to refer to
an unanchored date in the first lines (a letter's date) 0.60
any date under the signatures ("/s/ ... 5/17/12 Date") 0.55
the agreement date standing for a silent effective     0.60
date (a contract takes effect when it is concluded)
a two-digit year ("03/05/04")                          ≤ 0.60
preamble and signature block disagree                  -0.25
====================================================  ==========

Only the opening (the preamble), the closing (the signature block) and the sentences around
an anchor word are read, so a 300-page contract costs no more than a 3-page one.
"""

from __future__ import annotations

import re

from ._common import Finding, Unknown, excerpt
from ._date_phrases import DatePhrase, date_phrases, first_date_phrase, reads_french
from ._dates import word_starts
from ._partial import PartialDate
from ._signing_cues import (
    AGREEMENT_SUBJECT,
    BETWEEN_NOT_SIGNING,
    CONTRACT_AFTER,
    NOT_SIGNING,
    RANGE_END,
    REFERENCED_AGREEMENT,
    another_french_contract,
)

PREAMBLE = 0.95
SIGNATURE_BLOCK = 0.90
EFFECTIVE_DEFINITION = 0.80
FIRST_WRITTEN_ABOVE = 0.70
OPENING_DATE = 0.60
SIGNATURE_AREA = 0.55
DEFAULT_TO_AGREEMENT = 0.60
TWO_DIGIT_YEAR = 0.60
CONTRADICTED = 0.25

_OPENING_CHARS = 6000
_DATE_LINE_CHARS = 1000
_ANCHOR_REACH = 90
_APOS = "['\u2019]"

# The words that introduce the date of the agreement in a preamble; the date must follow
# within a few words, before the sentence ends. The weak ones ("as of", a bare title) are
# trusted only in the first lines, where they cannot be a balance sheet "as of March 31".
_PREAMBLE_ANCHOR = re.compile(
    r"(?P<strong>\b(?:dated|made|entered\s+into|executed|concluded|effective"
    r"|en\s+date\s+du|conclue?s?\s+le|sign[ée]e?s?\s+le)"
    r"|\bthis\s+(?:_+|\d|\[|day|first|second|third|\w+(?:th|st)\s+day))"
    r"|(?P<weak>\b(?:as\s+of|date\s*:|du\s+(?=\d|1er\b|premier\b)|(?:agreement|contract|contrat|amendment|lease"
    r"|avenant|bail)\b[\s,:\-]{0,3}(?=\S{0,12}\d|[_\[,]|\w+\.?\s+(?:_|\d))))",
    re.IGNORECASE,
)
_WEAK_ANCHOR_CHARS = 1500
# The recitals tell the story of earlier agreements: the preamble ends where they start.
_RECITALS = re.compile(
    r"\b(?:WHEREAS|RECITALS|BACKGROUND|WITNESSETH|Whereas,|PR[ÉE]AMBULE|EXPOS[ÉE]\s+PR[ÉE]ALABLE"
    r"|IL\s+A\s+[ÉE]T[ÉE]\s+(?:EXPOS[ÉE]|PR[ÉE]ALABLEMENT))"
)
_FIRST_LINES_CHARS = 400
# A filing stamp repeated on every page ("Source: ACME INC, 8-K, 10/1/2008") dates the filing.
_FILING_STAMP = re.compile(r"(?:^|\n)[ \t]*Source:[^\n]*$")
_WITNESS = re.compile(r"in\s+witness\s+where(?:of|by)|en\s+foi\s+de\s+quoi", re.IGNORECASE)
_FIRST_WRITTEN = re.compile(
    r"(?:date|day)s?\s+(?:and\s+year\s+)?(?:first\s+)?(?:above|hereinabove|before)"
    r"|first\s+(?:above\s+)?(?:written|set\s+forth|stated)|date\s+hereof",
    re.IGNORECASE,
)
_SIGNATURE_REACH = 3000
_SIGNED_ON = re.compile(
    r"(?:^|\n)[ \t]*(?:dated|date\s*:|signed\s+on|date\s+(?:of|de)\s+(?:signature|execution)"
    r"|le(?=\s+(?:\d|1er\b)))\s*:?"
    r"|\bfait\s+(?:à|a)\s+[^,\n]{1,40},?\s+le\b|\bsign[ée]e?s?\s+le\b"
    r"|\b(?:executed|signed)\s+(?:this\s+agreement\s+)?(?:on|as\s+of)\b",
    re.IGNORECASE,
)
_SIGNATURE_CUE = re.compile(
    r"in\s+witness\s+where|en\s+foi\s+de\s+quoi|\bfait\s+(?:à|a)\s|\bby\s*:|/s/|\bname\s*:"
    r"|\bsignatures?\s*:|\bsigned\s+by\b|\bsign[ée]\s+par\b"
    r"|\bpour\s+(?:la\s+soci[ée]t[ée]|le\s+compte)"
    r"|\blu\s+et\s+approuv[ée]|\bles\s+parties\s+soussign",
    re.IGNORECASE,
)
_EFFECTIVE_TERM = re.compile(
    r"[\"“”'\u2018\u2019«]\s*(?:effective\s+date|date\s+d['\u2019]effet|date\s+d['\u2019]entr[ée]e"
    r"\s+en\s+vigueur)\s*[\"“”'\u2018\u2019»]",
    re.IGNORECASE,
)
_EFFECTIVE_WORDING = re.compile(
    r"\b(?:shall\s+(?:become|be)\s+effective|becomes?\s+effective|take[s]?\s+effect"
    r"|prend(?:ra)?\s+effet|entre(?:ra)?\s+en\s+vigueur|effective\s+(?:as\s+of|on|from))\b",
    re.IGNORECASE,
)
# An unquoted definition: "EFFECTIVE DATE means 18 May 2000;" in a definitions table, "The
# commencement date for this contract will be 16th June 2004."
_EFFECTIVE_STATED = re.compile(
    r"\b(?:effective|commencement)\s+date\s+(?:(?:for|of)\s+th(?:is|e)\s+(?:contract|agreement)\s+)?"
    r"(?:shall\s+|will\s+)?(?:means?|be|is)\s+(?:the\s+)?(?=\d|[A-Z])",
    re.IGNORECASE,
)
_EFFECTIVE_STATED_WORDS = ("effective date", "commencement date")
_MEANS_AGREEMENT_DATE = re.compile(
    r"date\s+(?:first\s+)?(?:above\s+)?written|date\s+(?:first\s+)?(?:set\s+forth|stated)\s+above"
    r"|date\s+hereof|date\s+of\s+(?:this|the)\s+agreement|execution\s+(?:date|of\s+this)"
    r"|(?:last|later)\s+(?:of\s+the\s+)?(?:dates?\s+)?(?:of\s+)?(?:signature|execution)"
    r"|date\s+de\s+(?:sa\s+|la\s+)?signature|jour\s+de\s+(?:sa\s+)?signature",
    re.IGNORECASE,
)


def _confidence(base: float, phrase: DatePhrase) -> float:
    return min(base, TWO_DIGIT_YEAR) if phrase.two_digit_year else base


def _finding(text: str, anchor_start: int, phrase: DatePhrase, rule: str, base: float) -> Finding:
    return Finding(
        phrase.value,
        excerpt(text, anchor_start, phrase.end),
        rule,
        start=anchor_start,
        end=phrase.end,
        confidence=_confidence(base, phrase),
    )


class _Reader:
    """The text, its language, and the impossible dates met while reading it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.month_first = not reads_french(text)
        self.impossible: DatePhrase | None = None

    def date_after(
        self, position: int, reach: int = _ANCHOR_REACH, *, across_lines: bool = False
    ) -> DatePhrase | None:
        """The date phrase that follows ``position`` within the same sentence (or on the next
        lines, for a title whose date line sits under it)."""
        phrase = first_date_phrase(
            self.text, position, position + reach, month_first=self.month_first
        )
        if phrase is None or self.stamped(phrase.start):
            return None
        between = self.text[position : phrase.start]
        # "... on the terms below. Dated 5 May": a sentence end cuts the anchor off.
        if re.search(r"[.;]\s" if across_lines else r"[.;]\s|\n\s*\n", between):
            return None
        if phrase.value is None:
            self.impossible = self.impossible or phrase
            return None
        return phrase

    def stamped(self, position: int) -> bool:
        line_start = self.text.rfind("\n", 0, position)
        return bool(_FILING_STAMP.match(self.text, max(0, line_start), position))

    def preamble(self) -> Finding | None:
        recitals = _RECITALS.search(self.text, 0, _OPENING_CHARS)
        stop = recitals.start() if recitals else _OPENING_CHARS
        for anchor in _PREAMBLE_ANCHOR.finditer(self.text, 0, stop):
            weak = anchor.group("weak")
            if weak and anchor.start() > _WEAK_ANCHOR_CHARS:
                continue
            before = self.text[max(0, anchor.start() - 160) : anchor.start()]
            if REFERENCED_AGREEMENT.search(before) or another_french_contract(before):
                continue
            if NOT_SIGNING.search(self.text[max(0, anchor.start() - 60) : anchor.start()]):
                continue
            # "this 5th day of May": the day sits inside the anchor itself.
            position = anchor.start() + 4 if anchor.group(0)[:4].lower() == "this" else anchor.end()
            phrase = self.date_after(position, across_lines=bool(weak))
            if phrase is None or self.dates_something_else(position, phrase):
                continue
            subject = AGREEMENT_SUBJECT.search(before)
            trusted = bool(weak) or subject or anchor.start() < _FIRST_LINES_CHARS
            return _finding(
                self.text, anchor.start(), phrase, "preamble", PREAMBLE if trusted else OPENING_DATE
            )
        return None

    def dates_something_else(self, position: int, phrase: DatePhrase) -> bool:
        """Whether the words around a signing word's date say it is another contract's or
        another act's date (an amendment citing its contract, a first delivery)."""
        between = self.text[position : phrase.start]
        return bool(
            BETWEEN_NOT_SIGNING.search(between)
            or CONTRACT_AFTER.match(self.text, phrase.end, phrase.end + 60)
        )

    def closing_start(self) -> int:
        witnesses = list(_WITNESS.finditer(self.text))
        return witnesses[-1].start() if witnesses else max(0, len(self.text) - _SIGNATURE_REACH)

    def signature_block(self) -> tuple[Finding | None, bool]:
        """The date written in the signature block, and whether the block refers back to
        the date "first written above"."""
        start = self.closing_start()
        witness = _WITNESS.match(self.text, start)
        if witness is None:
            return self._closing_date(start), False
        clause_end = witness.end() + 300
        refers_back = bool(_FIRST_WRITTEN.search(self.text, witness.end(), clause_end))
        return self._closing_date(start), refers_back

    def signature_area_date(self) -> Finding | None:
        """The latest date written anywhere under the signatures, labelled or not: the
        contract is concluded when the last party signs. Without a sign of signatures (a
        witness clause, "By:", « Fait à », « Pour la société »...) the end of a short contract
        is its body, whose dates are terms and deadlines."""
        cue = _SIGNATURE_CUE.search(self.text, self.closing_start())
        if cue is None:
            return None
        start = cue.start()
        phrases = [
            phrase
            for phrase in date_phrases(
                self.text, start, start + _SIGNATURE_REACH, month_first=self.month_first
            )
            if phrase.value is not None
            and not self.stamped(phrase.start)
            and not NOT_SIGNING.search(self.text[max(0, phrase.start - 60) : phrase.start])
        ]
        if not phrases:
            return None
        latest = max(phrases, key=lambda phrase: phrase.value.earliest)  # type: ignore[union-attr]
        return _finding(self.text, latest.start, latest, "signature_area", SIGNATURE_AREA)

    def _closing_date(self, start: int) -> Finding | None:
        stop = start + _SIGNATURE_REACH
        found: list[Finding] = []
        for anchor in _SIGNED_ON.finditer(self.text, start, stop):
            if another_french_contract(self.text[max(0, anchor.start() - 160) : anchor.start()]):
                continue  # an amendment citing the date its contract was signed
            phrase = self.date_after(anchor.end(), reach=60)
            if phrase is not None and not self.dates_something_else(anchor.end(), phrase):
                found.append(_finding(self.text, anchor.start(), phrase, "signature_block", 0.9))
        if not found:
            return None
        # The contract is concluded when the last party signs.
        return max(found, key=lambda finding: finding.value.earliest)

    def effective_definition(self) -> Finding | None:
        for term in _EFFECTIVE_TERM.finditer(self.text):
            around = max(0, term.start() - 160)
            phrases = [
                phrase
                for phrase in date_phrases(
                    self.text, around, term.end() + 160, month_first=self.month_first
                )
                if phrase.value is not None
            ]
            if phrases:
                # The date nearest the defined term is the one it names.
                phrase = min(phrases, key=lambda item: _distance(item, term.start(), term.end()))
                start = min(phrase.start, term.start())
                return Finding(
                    phrase.value,
                    excerpt(self.text, start, max(phrase.end, term.end())),
                    "effective_date_definition",
                    start=start,
                    end=max(phrase.end, term.end()),
                    confidence=_confidence(EFFECTIVE_DEFINITION, phrase),
                )
        return None

    def opening_date(self, reach: int, rule: str, confidence: float) -> Finding | None:
        """The first date of the opening lines (a letter agreement's date line)."""
        for phrase in date_phrases(self.text, 0, reach, month_first=self.month_first):
            if phrase.value is None or self.stamped(phrase.start):
                continue
            before = self.text[max(0, phrase.start - 160) : phrase.start]
            if (
                NOT_SIGNING.search(before[-60:])
                or RANGE_END.search(before[-60:])
                or BETWEEN_NOT_SIGNING.search(before[-60:])
                or REFERENCED_AGREEMENT.search(before)
                or another_french_contract(before)
                or CONTRACT_AFTER.match(self.text, phrase.end, phrase.end + 60)
            ):
                continue  # a due date, a period, another contract's date: not a date line
            return _finding(self.text, phrase.start, phrase, rule, confidence)
        return None


def _distance(phrase: DatePhrase, start: int, end: int) -> int:
    return max(0, start - phrase.end, phrase.start - end)


def _compatible(left: PartialDate, right: PartialDate) -> bool:
    """Whether two dates may be the same day ("February 2017" and "February 14, 2017")."""
    return left.earliest <= right.latest and right.earliest <= left.latest


def _with_alternative(best: Finding, other: Finding) -> Finding:
    return Finding(
        best.value,
        best.evidence,
        best.rule,
        start=best.start,
        end=best.end,
        confidence=round(best.confidence - CONTRADICTED, 2),
        alternatives=(other,),
    )


def agreement_date(text: str) -> Finding | Unknown:
    """The date the contract was made, as a :class:`PartialDate` known to the day, the month
    or the year; Unknown("not_found") or Unknown("impossible_date") otherwise. Never raises."""
    if not text:
        return Unknown("not_found")
    reader = _Reader(text)
    preamble = reader.preamble()
    signed, refers_back = reader.signature_block()
    if preamble is not None:
        if signed is not None and not _compatible(preamble.value, signed.value):
            return _with_alternative(preamble, signed)
        return preamble
    if signed is not None:
        return signed
    fallback = (
        reader.opening_date(_DATE_LINE_CHARS, "opening_date", OPENING_DATE)
        or reader.effective_definition()
        or (
            reader.opening_date(_OPENING_CHARS, "date_first_written_above", FIRST_WRITTEN_ABOVE)
            if refers_back
            else None
        )
        or reader.signature_area_date()
    )
    if fallback is not None:
        return fallback
    if reader.impossible is not None:
        return Unknown(
            "impossible_date",
            excerpt(text, reader.impossible.start, reader.impossible.end),
            reader.impossible.start,
            reader.impossible.end,
        )
    return Unknown("not_found")


def effective_date(text: str, agreement: PartialDate | None) -> Finding | Unknown:
    """The date the contract takes effect: its "Effective Date" as defined, the date it
    "shall become effective on" / "prend effet le", the agreement date when the text says so
    ("the date first written above") or says nothing. Never raises."""
    if not text:
        return Unknown("not_found")
    reader = _Reader(text)
    for term in _EFFECTIVE_TERM.finditer(text):
        window = text[max(0, term.start() - 40) : term.end() + 120]
        if _MEANS_AGREEMENT_DATE.search(window) and agreement is not None:
            return Finding(
                agreement,
                excerpt(text, term.start(), term.end() + 120),
                "effective_date_is_agreement_date",
                start=term.start(),
                end=min(len(text), term.end() + 120),
                confidence=0.85,
            )
        break
    stated = reader.effective_definition()
    if stated is not None:
        return stated
    # Found from its literal words: the pattern scanned over a long contract costs a millisecond.
    for position in word_starts(text, _EFFECTIVE_STATED_WORDS, _EFFECTIVE_STATED):
        if position >= 60000:
            break
        wording = _EFFECTIVE_STATED.match(text, position)
        phrase = reader.date_after(wording.end(), reach=30) if wording else None
        if phrase is not None:
            return _finding(text, position, phrase, "effective_date_stated", 0.80)
    for wording in _EFFECTIVE_WORDING.finditer(text, 0, min(len(text), 60000)):
        phrase = reader.date_after(wording.end(), reach=60)
        if phrase is not None:
            return _finding(text, wording.start(), phrase, "effective_wording", 0.85)
    if agreement is not None:
        return Finding(agreement, "", "agreement_date_default", confidence=DEFAULT_TO_AGREEMENT)
    return Unknown("not_found")
