"""Parties: entity keys, display names and SIREN numbers (who a party is, not where it is named)."""

from __future__ import annotations

import re

from ._common import collapse_whitespace, fold_accents

_LEGAL_FORMS = frozenset(
    {
        "sas", "sasu", "sarl", "sa", "se", "sci", "snc", "eurl", "selarl", "gmbh", "ag", "kg",
        "ltd", "limited", "llc", "inc", "incorporated", "corp", "corporation", "co", "plc",
        "llp", "lp", "nv", "bv", "spa", "srl", "pte",
    }
)  # fmt: skip
_LEADING_WORDS = frozenset(
    {
        "m", "mme", "mlle", "mr", "mrs", "ms", "me", "dr", "monsieur", "madame", "mademoiselle",
        "maitre", "the", "la", "le", "l", "les", "societe",
    }
)  # fmt: skip


def entity_key(name: str) -> str:
    """Normalised identity of a party: "QUORVIA SAS" and "Quorvia" share one key.

    Case, accents, punctuation, legal forms and civil titles are ignored; the distinctive
    words are kept as they are (no fuzzy matching: "Brenalis" and "Brénalys" stay apart).
    """
    folded = fold_accents(name).lower().replace("&", " and ").replace("\u2019", "'")
    # Dotted abbreviations collapse first ("L.L.C." -> "llc", "S.p.A." -> "spa").
    folded = folded.replace(".", "")
    words = re.sub(r"[\W_]+", " ", folded).split()
    core = list(words)
    while core and core[0] in _LEADING_WORDS:
        core.pop(0)
    while core and core[-1] in _LEGAL_FORMS:
        core.pop()
    while core and core[0] in _LEGAL_FORMS:
        core.pop(0)
    # A name made only of stripped words ("SA") keeps them rather than vanish.
    return " ".join(core or words)


def display_name(name: str) -> str:
    """A party name cleaned for display: whitespace collapsed, quotes trimmed, legal form kept."""
    return collapse_whitespace(name).strip(" ,;:\"'“”«»")


def normalize_siren(value: str | None) -> str | None:
    """ "187 656 260" -> "187656260"; anything but nine digits (e.g. "en cours") -> None."""
    if not value:
        return None
    compact = re.sub(r"[\s.\u00a0\u202f-]", "", value)
    return compact if re.fullmatch(r"\d{9}", compact) else None


def luhn_is_valid(digits: str) -> bool:
    """Luhn checksum of a string of digits (SIREN, SIRET)."""
    if not digits.isdigit() or not digits.isascii():
        return False
    total = 0
    for index, char in enumerate(reversed(digits)):
        digit = int(char)
        if index % 2 == 1:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def siren_is_valid(siren: str) -> bool:
    """Luhn checksum of a nine-digit SIREN."""
    return len(siren) == 9 and luhn_is_valid(siren)
