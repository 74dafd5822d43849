"""``{{ text|highlight:query }}``: document text escaped, then the query's words in <mark>.

Document text is untrusted (uploads): every piece is escaped before any markup is added, and
matching is accent- and case-insensitive like the search itself (``fold_accents``).
"""

from __future__ import annotations

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from documents.normalize import fold_accents

register = template.Library()

_WORD = re.compile(r"\w+")
MIN_WORD_CHARS = 3  # as search.records.excerpt: short words ("de", "la") are not terms


def _folded_with_origins(text: str) -> tuple[str, list[int]]:
    """``text`` folded, and for each folded character the index of the one it came from
    (folding can change lengths: "œ" → "oe")."""
    pieces: list[str] = []
    origins: list[int] = []
    for index, char in enumerate(text):
        piece = fold_accents(char, casefold=True)
        pieces.append(piece)
        origins.extend([index] * len(piece))
    return "".join(pieces), origins


def highlight_terms(text: str, query: str | None) -> SafeString:
    """``text`` escaped, each word starting with a query term wrapped in ``<mark>``."""
    terms = tuple(
        {
            w
            for w in _WORD.findall(fold_accents(query or "", casefold=True))
            if len(w) >= MIN_WORD_CHARS
        }
    )
    if not terms:
        return escape(text)
    folded, origins = _folded_with_origins(text)
    parts: list[str] = []
    done = 0
    for match in _WORD.finditer(folded):
        if not match.group().startswith(terms):
            continue
        start, end = origins[match.start()], origins[match.end() - 1] + 1
        parts += [escape(text[done:start]), "<mark>", escape(text[start:end]), "</mark>"]
        done = end
    parts.append(escape(text[done:]))
    return mark_safe("".join(parts))  # noqa: S308 - every piece of text above is escaped


@register.filter(name="highlight")
def highlight_filter(text: str, query: str | None) -> SafeString:
    return highlight_terms(str(text), query)
