"""``{{ text|highlight:query }}``: document text escaped, then the query's words in <mark>.

Document text is untrusted (uploads): every piece is escaped before any markup is added, and
matching is accent- and case-insensitive like the search itself (``fold_accents``).
"""

from __future__ import annotations

import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from core.normalize import fold_accents

register = template.Library()

_WORD = re.compile(r"\w+")
MIN_WORD_CHARS = 3  # as search.records.excerpt: short words ("de", "la") are not terms


def highlight_terms(text: str, query: str | None) -> SafeString:
    r"""``text`` escaped, each word starting with a query term wrapped in ``<mark>``.

    Words are found in the text as written (``\w`` matches accented letters) and folded one
    by one, so a mark always covers a whole original word.
    """
    words = _WORD.findall(fold_accents(query or "", casefold=True))
    terms = tuple({word for word in words if len(word) >= MIN_WORD_CHARS})
    if not terms:
        return escape(text)
    parts: list[str] = []
    done = 0
    for match in _WORD.finditer(text):
        word = match.group()
        folded = word.lower() if word.isascii() else fold_accents(word, casefold=True)
        if not folded.startswith(terms):
            continue
        parts += [escape(text[done : match.start()]), "<mark>", escape(word), "</mark>"]
        done = match.end()
    parts.append(escape(text[done:]))
    return mark_safe("".join(parts))  # noqa: S308 - every piece of text above is escaped


@register.filter(name="highlight")
def highlight_filter(text: str, query: str | None) -> SafeString:
    return highlight_terms(str(text), query)
