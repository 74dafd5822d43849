"""The one reading of text and dates that every app shares: accent folding, ISO dates.

Full-text vectors, queries, party keys, duplicate fingerprints and extraction rules all fold
the same way, so a value folded in one place compares equal to the same value folded in
another.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date

# Latin diacritics only: non-Latin scripts keep their marks (a Devanagari vowel sign is part
# of the letter, not an accent).
_COMBINING_MARKS = re.compile(r"[\u0300-\u036f]")
_LIGATURES = str.maketrans({"œ": "oe", "Œ": "OE", "æ": "ae", "Æ": "AE"})


def fold_accents(text: str, *, casefold: bool = False) -> str:
    """Accents removed, ligatures expanded ("Brénalys" → "Brenalys", "œuvre" → "oeuvre");
    case kept unless ``casefold`` (websearch syntax needs ``OR`` as typed)."""
    if casefold:
        text = text.casefold()
    return _COMBINING_MARKS.sub("", unicodedata.normalize("NFKD", text.translate(_LIGATURES)))


def iso_date(value: date | None) -> str | None:
    """``YYYY-MM-DD`` (a datetime keeps its time), or ``None`` for an unknown date."""
    return value.isoformat() if value else None
