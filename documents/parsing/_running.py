"""Running headers and footers: the lines a PDF repeats at the top or bottom of its pages.

"Contrat de bail — Confidentiel" above every page and "Page 3 / 12" below it are not part of
the contract: left in the text they land in the middle of an article (or open one), and are
indexed dozens of times. A line is running when, its numbers aside, the same line sits among
the first or last lines of at least half of the pages (all of them for a two-page file).
"""

from __future__ import annotations

import math
import re
from collections import Counter

_EDGE_LINES = 3  # a header or footer is among a page's first or last three lines
_MIN_SHARE = 0.5
_NUMBERS_RE = re.compile(r"\d+")
_SPACES_RE = re.compile(r"\s+")
# A line that opens an article keeps its number: "ARTICLE 5" atop two pages is not a header.
_HEADING_START_RE = re.compile(
    r"^(?:article|art\.|section|clause|titre|chapitre|chapter|exhibit|schedule|annexe?)\b"
    r"|^\d{1,3}(?:\.\d{1,3})*[.)]?\s+\S",
    re.IGNORECASE,
)


def _key(line: str) -> str:
    folded = _SPACES_RE.sub(" ", line.strip().lower())
    return folded if _HEADING_START_RE.match(folded) else _NUMBERS_RE.sub("#", folded)


def _edges(lines: list[str]) -> list[tuple[str, int]]:
    """(top|bottom, index) of a page's first and last non-blank lines."""
    filled = [index for index, line in enumerate(lines) if line.strip()]
    top = [("top", index) for index in filled[:_EDGE_LINES]]
    bottom = [("bottom", index) for index in filled[-_EDGE_LINES:]]
    return top + bottom


def without_running_lines(pages: list[str]) -> list[str]:
    """``pages`` without the header and footer lines repeated on most of them."""
    with_text = [page for page in pages if page.strip()]
    if len(with_text) < 2:
        return pages
    needed = max(2, math.ceil(_MIN_SHARE * len(with_text)))
    seen: Counter[tuple[str, str]] = Counter()
    split = [page.split("\n") for page in pages]
    for lines in split:
        seen.update({(edge, _key(lines[index])) for edge, index in _edges(lines)})
    running = {key for key, count in seen.items() if count >= needed}
    if not running:
        return pages
    cleaned = []
    for lines in split:
        dropped = {index for edge, index in _edges(lines) if (edge, _key(lines[index])) in running}
        kept = [line for index, line in enumerate(lines) if index not in dropped]
        cleaned.append("\n".join(kept).strip("\n"))
    return cleaned
