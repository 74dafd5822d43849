"""Governing laws in a query: "droit français", "French law", "New York law", "laws of the
State of New York", "contrats de droit suisse", "governed by English or Swiss law".

A law word (droit, loi, law...) with a jurisdiction just before or after it is read through
the governing-law vocabulary ingestion uses (:func:`documents.extraction.normalize_governing_law`),
and kept only when the workspace has contracts under that law: a law no contract has would
list nothing. The words that introduce it ("governed by", "soumis au") go with it.
"""

from __future__ import annotations

from collections.abc import Collection

from documents.extraction import normalize_governing_law
from search.conditions._tokens import NEGATIONS, Words

LAW_WORDS = frozenset({"droit", "droits", "loi", "lois", "legislation", "law", "laws"})
# Words a law phrase may span without a jurisdiction of their own ("of the State of").
_AFTER_REACH = 6
_BEFORE_REACH = 3
# What introduces a law, read with it: "governed by the", "soumis au", "contrats de".
_INTRODUCERS = frozenset(
    {
        "governed", "regis", "regi", "regie", "regies", "soumis", "soumise", "soumises",
        "subject", "relevant", "by", "to", "under", "par", "au", "aux", "a", "la", "le",
        "du", "de", "d", "selon", "the",
    }
)  # fmt: skip
_INTRODUCER_REACH = 3
_OR = frozenset({"ou", "or", "et", "and"})
# Law words tried per query: each costs a few vocabulary lookups, and a query names a law
# or two ("droit droit droit…" a thousand characters long is no query to read).
MAX_LAW_WORDS = 10


def read_laws(words: Words, laws: Collection[str]) -> list[tuple[str, list[int]]]:
    """(law as stored, word indexes) for each law of the workspace the query names."""
    if not laws:
        return []
    found: list[tuple[str, list[int]]] = []
    tried = 0
    for index, word in enumerate(words.words):
        if word.folded not in LAW_WORDS or index in words.used:
            continue
        tried += 1
        if tried > MAX_LAW_WORDS:
            break
        read = _around(words, index, laws)
        if read is None:
            continue
        label, indexes = read
        other = _alternative(words, indexes, laws, label)
        first = min(indexes + (other[1] if other else []))
        introducers = words.introduced(first, _INTRODUCERS, _INTRODUCER_REACH)
        if words.negated(min([first, *introducers])):
            continue
        found.append((label, sorted({*indexes, *introducers})))
        if other:
            found.append(other)
        for _, read_indexes in found[-2:]:
            words.used.update(read_indexes)
    return found


def _phrase(words: Words, indexes: list[int]) -> str:
    return " ".join(words.words[i].folded for i in indexes)


def _free(words: Words, start: int, end: int) -> list[int] | None:
    """Indexes start..end-1 when all exist and are free."""
    if start < 0 or end > len(words.words) or start >= end:
        return None
    wanted = list(range(start, end))
    return None if any(i in words.used for i in wanted) else wanted


def _law_of(
    words: Words, window: list[int] | None, laws: Collection[str], suffix: str = ""
) -> str | None:
    # "laws other than French law": a window holding a negation names no law to read.
    if not window or any(words.words[i].folded in NEGATIONS for i in window):
        return None
    label = normalize_governing_law(_phrase(words, window) + suffix)
    return label if label in laws else None


def _around(words: Words, index: int, laws: Collection[str]) -> tuple[str, list[int]] | None:
    """The shortest window after the law word ("droit français", "laws of the State of New
    York"), else before it ("New York law"), that names a law of the workspace."""
    for reach in range(1, _AFTER_REACH + 1):
        window = _free(words, index, index + reach + 1)
        if label := _law_of(words, window, laws):
            return label, window or []
    for reach in range(1, _BEFORE_REACH + 1):
        window = _free(words, index - reach, index + 1)
        if label := _law_of(words, window, laws):
            return label, window or []
    return None


def _alternative(
    words: Words, indexes: list[int], laws: Collection[str], label: str
) -> tuple[str, list[int]] | None:
    """A second law joined by or/and: "droit anglais ou suisse" (after), "English or Swiss
    law" (before); the joining word goes with the second law."""
    after, before = max(indexes) + 1, min(indexes) - 1
    if after < len(words.words) and words.words[after].folded in _OR:
        for reach in range(1, _BEFORE_REACH + 1):
            window = _free(words, after + 1, after + 1 + reach)
            other = _law_of(words, window, laws, " law")  # "English" alone is no law
            if other and other != label and window:
                return other, [after, *window]
    if before >= 0 and words.words[before].folded in _OR:
        for reach in range(1, _BEFORE_REACH + 1):
            window = _free(words, before - reach, before)
            other = _law_of(words, window, laws, " law")  # "English" alone is no law
            if other and other != label and window:
                return other, [*window, before]
    return None
