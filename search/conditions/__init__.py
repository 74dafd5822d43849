"""Conditions written in a search query, read as filters: governing law, signature and end
dates, contract types and parties ("baux commerciaux signés avant 2015", "contracts with
Acme governed by New York law ending before 2027").

Deterministic (no model), French and English. Laws, types and parties are read only when the
workspace has them, so a condition read never empties a search by itself. The words read are
taken out of the text, and what is left is what the search ranks. A negated condition ("not
governed by", "sauf droit anglais", "hors baux") is not read: its words stay in the text.
The query is already bounded (:data:`search.paging.MAX_QUERY_CHARS`); the patterns run on
RE2, linear in its length.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal, get_args

from search.conditions._dates import read_dates
from search.conditions._laws import read_laws
from search.conditions._parties import PartyName, party_index, read_parties
from search.conditions._tokens import Words
from search.conditions._types import read_types

# The filters a query can set, by their name in search_data_room's filters.
InterpretableField = Literal[
    "entity_ids", "contract_types", "governing_law", "signature_date", "end_date"
]
FIELDS: tuple[str, ...] = get_args(InterpretableField)
# Small words left between two conditions go with them ("distribution et franchise").
_JOINERS = frozenset({"et", "and", "ou", "or", "de", "d", "du", "des", "les", "the", "ni"})
# Words that ask for contracts without saying which: once conditions are read, a query left
# with only these has no text to rank ("quels contrats", "show me all the agreements").
FILLER = frozenset(
    {"contrat", "contrats", "contract", "contracts", "agreement", "agreements", "accord",
     "accords", "convention", "conventions", "document", "documents", "acte", "actes", "quel",
     "quels", "quelle", "quelles", "which", "what", "list", "liste", "lister", "show", "all",
     "tous", "toutes", "les", "des", "the", "me", "moi", "give", "find", "trouve", "trouver",
     "cherche", "chercher", "search", "are", "sont", "qui", "that", "with", "avec", "of", "de",
     "du", "d", "la", "le", "l", "et", "and", "ou", "or", "in", "en", "dans", "a", "an"}
)  # fmt: skip

__all__ = [
    "FIELDS",
    "Condition",
    "InterpretableField",
    "PartyName",
    "QueryVocabulary",
    "Reading",
    "query_words",
    "read_conditions",
]


@dataclass(frozen=True)
class QueryVocabulary:
    """What a query may name in one workspace."""

    laws: frozenset[str] = frozenset()
    contract_types: frozenset[str] = frozenset()  # present, and the families they belong to
    parties: tuple[PartyName, ...] = ()


@dataclass(frozen=True)
class Condition:
    """One condition read: a filter's field, its value, and the words as typed.

    ``value``: a law as stored, a contract-type key, an entity id, or date bounds
    (``{"after": date, "before": date}``, either optional)."""

    field: str
    value: str | int | dict[str, date]
    words: str


@dataclass(frozen=True)
class Reading:
    conditions: list[Condition]
    leftover: str  # the query without the words read; "" when only FILLER words are left


def read_conditions(
    query: str, vocabulary: QueryVocabulary, *, ignore: Collection[str] = ()
) -> Reading:
    """The conditions ``query`` states, except on the fields in ``ignore``, and the rest of
    its text; the query unchanged when it states none."""
    words = Words.of(query)
    found: list[tuple[int, Condition]] = []  # (first word, condition): in the query's order

    def add(field: str, value: str | int | dict[str, date], indexes: Sequence[int]) -> None:
        found.append((min(indexes), Condition(field, value, words.quote(indexes))))

    wants = set(FIELDS) - set(ignore)
    parties = party_index(
        vocabulary.parties if "entity_ids" in wants else (), {w.folded for w in words.words}
    )
    # Whole names first (the most specific), then laws and types, then parts of names;
    # dates last, once a name no longer stands between a verb and its date.
    for entity_id, indexes in read_parties(words, parties, partial=False):
        add("entity_ids", entity_id, indexes)
    if "governing_law" in wants:
        for label, indexes in read_laws(words, vocabulary.laws):
            add("governing_law", label, indexes)
    if "contract_types" in wants:
        for key, indexes in read_types(words, vocabulary.contract_types):
            add("contract_types", key, indexes)
    for entity_id, indexes in read_parties(words, parties, partial=True):
        add("entity_ids", entity_id, indexes)
    for field, bounds, indexes in read_dates(words, wants):
        add(field, bounds, indexes)
    if not found:
        return Reading([], query)
    _take_joiners(words)
    leftover = words.leftover()
    if all(word.folded in FILLER for word in Words.of(leftover).words):
        leftover = ""
    conditions = [condition for _, condition in sorted(found, key=lambda item: item[0])]
    return Reading(conditions, leftover)


def query_words(query: str) -> set[str]:
    """The query's words as the readers see them (folded), for looking up what it may name."""
    return {word.folded for word in Words.of(query).words}


def _take_joiners(words: Words) -> None:
    for index in range(1, len(words.words) - 1):
        if (
            index not in words.used
            and words.words[index].folded in _JOINERS
            and index - 1 in words.used
            and index + 1 in words.used
        ):
            words.used.add(index)
