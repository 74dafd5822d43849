"""Helpers shared by the extraction rules: accent folding, excerpts, the Finding record."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from core.normalize import fold_accents

__all__ = ["fold_accents"]

EVIDENCE_MAX_CHARS = 240

_COMBINING_MARKS = re.compile(r"[\u0300-\u036f]")
_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Finding:
    """A value found in a text, with the excerpt that supports it and the rule that fired.

    ``start``/``end`` locate the supporting words in the text (-1 when not located), so the
    caller can name the article and page; ``confidence`` (0 to 1) says how much the rule is
    trusted: a preamble's "dated as of" more than the first date of the document.
    """

    value: Any
    evidence: str
    rule: str
    start: int = -1
    end: int = -1
    confidence: float = 1.0
    # Other values the same text supports ("dated March 1" in the preamble, "March 3" in the
    # signature block): the caller warns the lawyer instead of silently picking one.
    alternatives: tuple[Finding, ...] = ()


@dataclass(frozen=True)
class Unknown:
    """Why a field could not be read from the text.

    ``reason`` is a machine code the caller translates ("not_found", "impossible_date",
    "two_digit_year", "contradictory"...); ``evidence`` quotes the words that made it doubtful.
    """

    reason: str
    evidence: str = ""
    start: int = -1
    end: int = -1


def collapse_whitespace(text: str) -> str:
    """Single spaces, trimmed."""
    return _WHITESPACE.sub(" ", text).strip()


def excerpt(text: str, start: int, end: int, *, context: int = 60) -> str:
    """The matched span with a little context, whitespace collapsed, at most 240 characters."""
    left = max(0, start - context)
    right = min(len(text), end + context)
    # Widen to whole words: an excerpt that starts mid-word reads as a glitch.
    while left > 0 and not text[left - 1].isspace() and left > start - context - 20:
        left -= 1
    while right < len(text) and not text[right].isspace() and right < end + context + 20:
        right += 1
    snippet = collapse_whitespace(text[left:right])
    if len(snippet) <= EVIDENCE_MAX_CHARS:
        return snippet
    # Keep the match itself in view: trim the context rather than the span.
    core = collapse_whitespace(text[start:end])
    return core[:EVIDENCE_MAX_CHARS]


def normalize_contract_type(value: str | None) -> str | None:
    """Trimmed, lower-cased contract-type label ("Bail  Commercial " -> "bail commercial")."""
    if value is None:
        return None
    label = collapse_whitespace(value).lower()
    return label or None
