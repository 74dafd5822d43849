"""Renvois: the references a French legal text makes to articles, ranges and other texts.

``extract_references`` reads "l'article L. 121-3 du code de la consommation", "aux articles
L. 1233-3 à L. 1233-7", "au 1° de l'article 6 de la loi n° 89-462 du 6 juillet 1989": numbers
normalised as :mod:`sources.numbers` stores them, codes as :mod:`sources.codes_catalog` slugs.
Bump ``EXTRACTOR_VERSION`` when what it finds changes: imports re-extract older codes.
"""

from __future__ import annotations

from sources.renvois._extract import Mention, extract_references
from sources.renvois._patterns import NUMBER_RE

EXTRACTOR_VERSION = 3

__all__ = [
    "EXTRACTOR_VERSION",
    "NUMBER_RE",
    "Mention",
    "extract_references",
]
