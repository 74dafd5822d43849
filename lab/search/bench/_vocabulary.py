"""The seeded legal vocabulary of the synthetic rooms, read from ``vocabulary.json``.

Generation draws from these tuples by position with a seeded RNG: their order is part of
what makes a room byte-identical for a seed, so the data file is edited by appending only.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

VOCABULARY_FILE = Path(__file__).with_name("vocabulary.json")


@dataclass(frozen=True)
class Theme:
    """A kind of article: its heading in both languages and the phrases its text uses."""

    fr_title: str
    en_title: str
    fr: tuple[str, ...]
    en: tuple[str, ...]


def _load() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))
    return data


_DATA = _load()

THEMES: tuple[Theme, ...] = tuple(
    Theme(theme["fr_title"], theme["en_title"], tuple(theme["fr"]), tuple(theme["en"]))
    for theme in _DATA["themes"]
)
# Connecting words between phrases: they make sentences and dilute the topic vocabulary.
FILLERS_FR: tuple[str, ...] = tuple(_DATA["fillers"]["fr"])
FILLERS_EN: tuple[str, ...] = tuple(_DATA["fillers"]["en"])
# (label as extraction normalises it, French title, English title)
CONTRACT_TYPES: tuple[tuple[str, str, str], ...] = tuple(
    (kind["label"], kind["fr_title"], kind["en_title"]) for kind in _DATA["contract_types"]
)
LAWS: tuple[str, ...] = tuple(_DATA["laws"])
_NAME_STEMS: tuple[str, ...] = tuple(_DATA["company_names"]["stems"])
_NAME_SECTORS: tuple[str, ...] = tuple(_DATA["company_names"]["sectors"])
_LEGAL_FORMS: tuple[str, ...] = tuple(_DATA["company_names"]["legal_forms"])


def entity_names(count: int, rng: random.Random) -> list[str]:
    """``count`` distinct company names ("Quorvia Logistique SAS"), seeded."""
    combos = [
        f"{stem} {sector} {form}"
        for stem in _NAME_STEMS
        for sector in _NAME_SECTORS
        for form in _LEGAL_FORMS
    ]
    return rng.sample(combos, count)
