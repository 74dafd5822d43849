"""Article numbers as lawyers write them, to the one form stored: "L121-3".

"L. 121-3", "L121-3", "l 121-3", "art. L. 121-3", "Article L.121-3" and "R.* 121-5" all read
as "L121-3" / "R121-5": Légifrance's star (a décret en Conseil d'État) is not part of what
anyone types. Civil code numbers are bare ("1240", "2270-2"). Annexes and other labels
("Annexe I", "préliminaire") are kept as written, spaces collapsed.
"""

from __future__ import annotations

import re

_ARTICLE_WORD = re.compile(r"^(?:articles?|art\.?)\s+", re.IGNORECASE)
_NUMBER = re.compile(
    r"^(?P<prefix>L\.?\s?O|[LRDA])?\s*[.-]?\s*\*{0,2}\s*"
    r"(?P<digits>\d{1,5}(?:\s*-\s*\d{1,5}){0,4})"
    r"(?:\s+(?P<suffix>[A-Z]|bis|ter|quater|quinquies|sexies))?$",
    re.IGNORECASE,
)
MAX_NUMBER_LENGTH = 40


def normalise_article_number(raw: str) -> str | None:
    """The stored form of an article number, or None when ``raw`` is not one."""
    text = " ".join(str(raw).split())
    if not text or len(text) > MAX_NUMBER_LENGTH + 20:
        return None
    text = _ARTICLE_WORD.sub("", text)
    match = _NUMBER.match(text)
    if match is None:
        return None
    prefix = (match["prefix"] or "").upper().replace(".", "").replace(" ", "")
    digits = re.sub(r"\s+", "", match["digits"])
    suffix = match["suffix"] or ""
    suffix = suffix.upper() if len(suffix) == 1 else suffix.lower()
    number = f"{prefix}{digits}" + (f" {suffix}" if suffix else "")
    return number[:MAX_NUMBER_LENGTH]


def stored_number(raw: str) -> str:
    """The form an imported article is stored under: its normal form, or its label."""
    return normalise_article_number(raw) or " ".join(str(raw).split())[:MAX_NUMBER_LENGTH]


def number_sort_key(number: str) -> tuple[str, tuple[int, ...], str]:
    """Orders L121-2 before L121-10 (the codes' own order when no position is known)."""
    match = re.match(r"^([A-Z]*)([\d-]+)(.*)$", number)
    if match is None:
        return (number, (), "")
    parts = tuple(int(p) for p in match[2].split("-") if p)
    return (match[1], parts, match[3])
