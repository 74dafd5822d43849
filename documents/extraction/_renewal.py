"""Whether and how a contract renews: automatically (tacite reconduction) or at a party's
option, with the renewal period and the notice that stops it.

Only the sentences around renewal words are read, at most a few dozen of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ._common import Finding, Unknown, excerpt
from ._dates import NUMBER, number_value, word_starts

_ANCHORS_MAX = 80


@dataclass(frozen=True)
class Renewal:
    """How the contract renews: automatically (tacite reconduction) or at a party's option,
    for periods of ``term_months``, unless notice is given ``notice_days`` before the end."""

    automatic: bool
    term_months: int | None = None
    notice_days: int | None = None


_RENEWAL_ANCHOR = re.compile(
    r"\brenew\w*|reconduction|reconduit\w*|renouvel\w*|automatic(?:ally)?\s+(?:be\s+)?extend\w*"
    r"|extended\s+automatically|evergreen|(?:automatically\s+)?continue\s+automatically"
    r"|automatically\s+continue|to[\s-](?:month|year)\s+basis|options?\s+to\s+extend|extend\s+the\s+term",
    re.IGNORECASE,
)
_RENEWAL_WORDS = ("renew", "reconduc", "reconduit", "renouvel", "automatic", "extend", "evergreen",
    "continue automatically", "to month", "to-month", "to year", "to-year", "option")  # fmt: skip
_MUTUAL = re.compile(
    r"mutual(?:ly)?\s+(?:written\s+)?(?:agree|consent)|written\s+agreement\s+of\s+(?:both|the)"
    r"|commun\s+accord|consent\s+of\s+both|by\s+amendment|as\s+the\s+parties\s+may\s+agree|negotiat|(?:no|not\s+be)\s+"
    r"(?:automatic|automatically)\s+renew|shall\s+not\s+(?:be\s+)?renew",
    re.IGNORECASE,
)
_AUTOMATIC = re.compile(
    r"automatic\w*|tacit\w*|[\s-]to[\s-](?:month|year)\s+basis|(?:shall|will)\s+(?:thereafter\s+|then\s+)?(?:be\s+)?"
    r"(?:renew|extend|continue)|se\s+renouvel\w*|sera\s+(?:renouvel|reconduit)\w*"
    r"|unless\s+(?:either|one|a|the\s+other|any)\s+party|unless\s+(?:terminated|notice)",
    re.IGNORECASE,
)
_OPTION = re.compile(
    r"options?\s+to\s+(?:renew|extend)|may\s+(?:at\s+its\s+option\s+)?(?:renew|extend)"
    r"|right\s+to\s+(?:renew|extend)|facult[ée]\s+de\s+renouvel",
    re.IGNORECASE,
)
_PERIOD = re.compile(
    rf"(?<![\w-])(?P<number>{NUMBER})[\s-]+(?:\w+[\s-]+)?"
    r"(?P<unit>years?|months?|days?|ans?|ann[ée]es?|mois|jours?)\b"
    r"|(?P<annual>year[\s-]to[\s-]year|annual|d['\u2019]ann[ée]e\s+en\s+ann[ée]e)",
    re.IGNORECASE,
)
# "ninety (90) days' prior written notice", "trois mois avant l'échéance".
_NOTICE_AFTER = re.compile(
    r"^(?:['\u2019]s?)?\s*(?:(?:prior|advance|written|calendar|business|de)\s+){0,3}"
    r"(?:notice|in\s+advance|before|prior|pr[ée]avis|avant|à\s+l['\u2019]avance)",
    re.IGNORECASE,
)
_NOTICE_BEFORE = re.compile(
    r"(?:pr[ée]avis\s+(?:\w+\s+)?(?:de|d['\u2019])|notice\s+of|at\s+least|not\s+less\s+than"
    r"|no\s+less\s+than|au\s+moins|within|no\s+later\s+than)\s*$",
    re.IGNORECASE,
)
_SENTENCE_REACH = 400


def _sentence(text: str, position: int) -> tuple[int, int]:
    low = max(0, position - _SENTENCE_REACH)
    start = max(text.rfind(". ", low, position), text.rfind("\n\n", low, position))
    end_dot = text.find(". ", position, position + _SENTENCE_REACH)
    end = end_dot if end_dot != -1 else min(len(text), position + _SENTENCE_REACH)
    return (start + 1 if start != -1 else low), end


def _periods(text: str, start: int, end: int) -> tuple[int | None, int | None]:
    """(renewal period in months, notice in days) named in a sentence."""
    term_months: int | None = None
    notice_days: int | None = None
    for match in _PERIOD.finditer(text, start, end):
        if match.group("annual"):
            term_months = term_months or 12
            continue
        count = number_value(match.group("number")) or 0
        unit = match.group("unit").lower()
        days = count * (
            1
            if unit.startswith(("day", "jour"))
            else 30
            if unit.startswith(("mo", "mois"))
            else 365
        )
        before = text[max(start, match.start() - 30) : match.start()]
        if _NOTICE_BEFORE.search(before) or _NOTICE_AFTER.search(text[match.end() : end]):
            notice_days = notice_days or days
        elif not unit.startswith(("day", "jour")) and term_months is None:
            term_months = days // 30 if unit.startswith(("mo", "mois")) else count * 12
    return term_months, notice_days


def renewal(text: str) -> Finding | Unknown:
    """Whether the contract renews (:class:`Renewal`): automatically ("shall automatically
    renew for successive one (1) year periods", "tacite reconduction") or at a party's option,
    with the renewal period and the notice that stops it; Unknown("not_found") otherwise.
    Never raises."""
    for count, position in enumerate(word_starts(text, _RENEWAL_WORDS, _RENEWAL_ANCHOR)):
        anchor = _RENEWAL_ANCHOR.match(text, position)
        if count >= _ANCHORS_MAX or anchor is None:
            break
        start, end = _sentence(text, anchor.start())
        sentence = text[start:end]
        if _MUTUAL.search(sentence):
            continue
        automatic = bool(_AUTOMATIC.search(sentence))
        if not automatic and not _OPTION.search(sentence):
            continue
        term_months, notice_days = _periods(text, start, end)
        return Finding(
            Renewal(automatic, term_months, notice_days),
            excerpt(text, anchor.start(), anchor.end(), context=120),
            "automatic_renewal" if automatic else "renewal_option",
            anchor.start(),
            anchor.end(),
            0.85 if automatic else 0.7,
        )
    return Unknown("not_found")
