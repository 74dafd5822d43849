"""Amendments (avenants): is a document one, which contract does it amend, what does it change."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from ._common import Finding, fold_accents
from ._dates import DATE_PHRASE, parse_date
from ._terms import derive_end_date


@dataclass(frozen=True)
class AmendmentInfo:
    """What an amendment says about itself and the contract it amends."""

    number: int | None
    parent_title_hint: str
    parent_date_hint: date | None
    new_end_date: Finding | None


_AMENDMENT_WORD = re.compile(
    r"\b(?:avenant|amendment|addendum|amending\s+agreement|modification\s+du\s+contrat"
    r"|modification\s+de\s+la\s+convention|modificatif)\b",
    re.IGNORECASE,
)
# A restated agreement replaces the contract wholesale: it is a contract, not an amendment.
_RESTATED = re.compile(r"amended\s+and\s+restated|modifi[ée]\s+et\s+refondu", re.IGNORECASE)
_OPENING_CHARS = 300
# The opening of an amendment says so about itself ("Les parties conviennent de modifier").
_OPENING_SIGNAL = re.compile(
    r"^\W*(?:[\w.-]+\s+){0,4}(?:avenant|amendment|addendum)\b"
    r"|conviennent\s+de\s+modifier|agree\s+to\s+amend|hereby\s+amend",
    re.IGNORECASE,
)
_ORDINALS = {
    "premier": 1, "first": 1, "deuxieme": 2, "second": 2, "troisieme": 3, "third": 3,
    "quatrieme": 4, "fourth": 4, "cinquieme": 5, "fifth": 5,
}  # fmt: skip
_NUMBERED = re.compile(
    r"(?:avenant|amendment|addendum)\s*(?:n\s*[°ºo]\.?|no\.?|num[ée]ro|number|#)?\s*(\d{1,3})\b",
    re.IGNORECASE,
)
_ORDINAL = re.compile(
    rf"\b({'|'.join(_ORDINALS)})\s+(?:avenant|amendment|addendum)\b",
)
_PARENT_IN_TITLE = re.compile(
    r"(?:avenant|amendment|addendum)[^\n]*?\b(?:au|à\s+la|à\s+l['\u2019]|to\s+(?:the\s+)?)\s*"
    r"(?P<hint>[^\u2014\u2013\n]+?)\s*(?:[\u2014\u2013]|\s-\s|\s+du\s+\d|\s+dated\b|\s+en\s+date\b|$)",
    re.IGNORECASE,
)
_PARENT_IN_TEXT = re.compile(
    r"\b(?P<hint>(?:contrat|convention|bail|accord|lettre\s+de\s+mission|agreement)"
    r"[^.,;\n]{0,80}?)(?=\s+(?:qu['\u2019]|conclu|sign[ée]|en\s+date|du\s+\d|dated|entered)|[.,;\n])",
    re.IGNORECASE,
)
_PARENT_DATE = re.compile(
    rf"(?:sign[ée]e?s?|conclue?s?|en\s+date|dated(?:\s+as\s+of)?|entered\s+into\s+(?:on|as\s+of))"
    rf"\s+(?:le\s+|du\s+|on\s+)?(?P<date>{DATE_PHRASE})"
    rf"|\bdu\s+(?P<du>{DATE_PHRASE})",
    re.IGNORECASE,
)


def _amendment_number(title: str, opening: str) -> int | None:
    for source in (title, opening):
        numbered = _NUMBERED.search(source)
        if numbered:
            return int(numbered.group(1))
        ordinal = _ORDINAL.search(fold_accents(source).lower())
        if ordinal:
            return _ORDINALS[ordinal.group(1)]
    return None


def detect_amendment(*, title: str, contract_type: str | None, text: str) -> AmendmentInfo | None:
    """An AmendmentInfo when the document is an amendment, else None.

    The title and contract type decide first, then the opening of the text; a clause that
    merely mentions future avenants ("toute modification fera l'objet d'un avenant") does not.
    """
    opening = text.lstrip()[:_OPENING_CHARS]
    labels = f"{title}\n{contract_type or ''}"
    if _RESTATED.search(labels) or _RESTATED.search(opening):
        return None
    if not (_AMENDMENT_WORD.search(labels) or _OPENING_SIGNAL.search(opening)):
        return None

    head = text[:1500]
    parent_title = _PARENT_IN_TITLE.search(title)
    parent_text = _PARENT_IN_TEXT.search(head)
    if parent_title:
        hint = parent_title.group("hint")
    elif parent_text:
        hint = parent_text.group("hint")
    else:
        hint = ""
    hint = re.sub(r"^(?:le|la|l['\u2019]|du|au|the)\s*", "", hint.strip(), flags=re.IGNORECASE)

    parent_date = None
    for source in (title, head):
        match = _PARENT_DATE.search(source)
        if match:
            parent_date = parse_date(match.group("date") or match.group("du"))
            break
    return AmendmentInfo(
        number=_amendment_number(title, opening),
        parent_title_hint=hint.strip(),
        parent_date_hint=parent_date,
        new_end_date=derive_end_date(text, None),
    )
