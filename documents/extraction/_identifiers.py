"""French company identifiers: SIREN, SIRET and RCS registrations, with their checksums."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ._common import Finding, excerpt
from ._parties import luhn_is_valid, siren_is_valid

IdentifierKind = Literal["siren", "siret", "rcs"]

# La Poste's establishments share one SIREN whose SIRETs do not pass Luhn: INSEE checks them
# by the sum of their digits, a multiple of 5.
_LA_POSTE_SIREN = "356000000"
# PDF text breaks lines and justifies words: "552\n100 554", "330  660  839".
_SEP = r"(?:\.|[ \t\n\u00a0\u202f]{1,3})?"
_SIREN_DIGITS = rf"\d{{3}}{_SEP}\d{{3}}{_SEP}\d{{3}}"
_SIRET_DIGITS = rf"{_SIREN_DIGITS}{_SEP}\d{{5}}"
_NUMBER_LABEL = r"(?:\s*(?:n[°o]\.?|num[ée]ro|number|no\.?))?\s*[:\-]?\s*"
# A city: capitalised words, hyphenated or not ("Paris", "Aix-en-Provence", "Le Mans").
_CITY = r"(?-i:[A-ZÀ-Þ][\w'\u2019-]*(?:\s+[A-ZÀ-Þ][\w'\u2019-]+)?)"
_RCS = r"(?:R\.?\s?C\.?\s?S\.?|registre\s+du\s+commerce\s+et\s+des\s+soci[ée]t[ée]s)"
# One scan: "SIRET : 552 100 554 00013", "SIREN 552 100 554", "RCS Paris B 552 100 554",
# "immatriculée au RCS de Lyon sous le numéro 833 901 406", "552 100 554 R.C.S. Paris".
_IDENTIFIER = re.compile(
    rf"\b(?P<label>SIRE[NT])\b{_NUMBER_LABEL}(?P<number>{_SIRET_DIGITS}|{_SIREN_DIGITS})(?![\d])"
    rf"|\b{_RCS}\s+(?:(?:de\s+|d['\u2019]\s*)?(?P<city>{_CITY})\s*,?\s*)?(?:sous\s+le\s+)?"
    rf"{_NUMBER_LABEL}(?:[AB]\s+)?(?P<rcs_number>{_SIREN_DIGITS})(?![\d])"
    rf"|(?<![\d])(?P<number_first>{_SIREN_DIGITS})\s+{_RCS}\s+(?:de\s+|d['\u2019]\s*)?"
    rf"(?P<city_after>{_CITY})",
    re.IGNORECASE,
)
_NOT_DIGIT = re.compile(r"\D")


@dataclass(frozen=True)
class Identifier:
    """A company identifier as written, its checksum verdict, and the registry's city (RCS)."""

    kind: IdentifierKind
    number: str
    valid: bool
    city: str | None = None


def siret_is_valid(siret: str) -> bool:
    """Luhn over the 14 digits; La Poste's SIRETs by the sum of their digits."""
    if len(siret) != 14 or not siret.isdigit():
        return False
    if siret.startswith(_LA_POSTE_SIREN):
        return sum(int(char) for char in siret) % 5 == 0
    return luhn_is_valid(siret)


def _identifier(match: re.Match[str]) -> Identifier:
    if match.group("label"):
        number = _NOT_DIGIT.sub("", match.group("number"))
        if len(number) == 14:
            return Identifier("siret", number, siret_is_valid(number))
        return Identifier("siren", number, siren_is_valid(number))
    number = _NOT_DIGIT.sub("", match.group("rcs_number") or match.group("number_first"))
    city = match.group("city") or match.group("city_after")
    return Identifier("rcs", number, siren_is_valid(number), city.strip() if city else None)


def extract_identifiers(text: str) -> list[Finding]:
    """SIREN, SIRET and RCS numbers in order of appearance, each located in ``text``.

    A number whose checksum fails is kept with ``valid=False``: a mistyped SIREN is what the
    lawyer must see. ``start``/``end`` let the caller attach each number to the nearest party.
    """
    findings: list[Finding] = []
    for match in _IDENTIFIER.finditer(text):
        identifier = _identifier(match)
        findings.append(
            Finding(
                value=identifier,
                evidence=excerpt(text, match.start(), match.end(), context=40),
                rule=identifier.kind,
                start=match.start(),
                end=match.end(),
                confidence=1.0 if identifier.valid else 0.5,
            )
        )
    return findings
