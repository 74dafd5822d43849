"""Parties in a query: only names of the workspace's own entities (their names and aliases).

A full name is read wherever it stands ("Hydrelle Énergie", legal form optional); part of a
name ("Brenalis" for "Groupe Brenalis") is read when it designates one entity only: a word
two entities share ("Verdane" for Foncière Verdane and Comptoir Verdane) is left in the text,
and so are generic words of company names ("groupe", "banque", "énergie").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from search.conditions._tokens import Words

# Legal forms and civil titles: optional around a name, never enough to designate one.
LEGAL_FORMS = frozenset(
    {"sa", "sas", "sasu", "sarl", "eurl", "sci", "snc", "selarl", "scp", "inc", "incorporated",
     "ltd", "limited", "llc", "llp", "lp", "plc", "gmbh", "ag", "bv", "nv", "spa", "srl",
     "corp", "corporation", "co", "company", "m", "mme", "mr", "mrs", "ms", "dr", "me"}
)  # fmt: skip
# Words of company names too common to designate a party alone.
GENERIC = frozenset(
    {"groupe", "group", "holding", "holdings", "societe", "company", "cabinet", "banque",
     "bank", "maison", "atelier", "comptoir", "fonciere", "energie", "energy", "sante",
     "health", "logistique", "logistics", "advisory", "analytics", "avocats", "partners",
     "conseil", "consulting", "services", "service", "international", "france", "europe",
     "capital", "finance", "industries", "technologies", "systems", "solutions", "global",
     "the", "de", "la", "le", "les", "des", "du", "et", "and", "of", "l", "d", "contrat",
     "contrats", "contract", "contracts", "agreement", "immobilier", "immobiliere",
     "distribution", "transport", "transports", "assurances", "insurance", "media", "software"}
)  # fmt: skip
_MIN_PART_CHARS = 3
_INTRODUCERS = frozenset(
    {"with", "avec", "between", "entre", "involving", "impliquant", "concernant", "regarding",
     "de", "du", "d", "by", "par", "party", "partie", "and", "et", "the"}
)  # fmt: skip
_INTRODUCER_REACH = 2


@dataclass(frozen=True)
class PartyName:
    entity_id: int
    name: str
    aliases: tuple[str, ...] = ()


def _core(name: str) -> tuple[str, ...]:
    return tuple(w.folded for w in Words.of(name).words if w.folded not in LEGAL_FORMS)


@dataclass(frozen=True)
class _Index:
    names: dict[int, list[tuple[str, ...]]]  # entity id -> its names' core words
    by_word: dict[str, set[int]]  # core word -> entities whose names hold it


def _index(parties: Sequence[PartyName]) -> _Index:
    names: dict[int, list[tuple[str, ...]]] = {}
    by_word: dict[str, set[int]] = {}
    for party in parties:
        for name in (party.name, *party.aliases):
            core = _core(name)
            if core:
                names.setdefault(party.entity_id, []).append(core)
                for word in core:
                    by_word.setdefault(word, set()).add(party.entity_id)
    return _Index(names, by_word)


def read_parties(
    words: Words, parties: Sequence[PartyName], *, partial: bool
) -> list[tuple[int, list[int]]]:
    """(entity id, word indexes) for each workspace party the query names: full names only,
    or (``partial``) also a part of a name that designates one entity."""
    if not parties:
        return []
    index = _index(parties)
    found: list[tuple[int, list[int]]] = []
    position = 0
    while position < len(words.words):
        read = _at(words, position, index, partial=partial)
        if read is None:
            position += 1
            continue
        entity_id, covered = read
        taken = _introducers(words, min(covered)) + covered
        position = max(covered) + 1
        if words.negated(min(taken)) or entity_id in {e for e, _ in found}:
            continue
        words.used.update(taken)
        found.append((entity_id, taken))
    return found


def _run(words: Words, position: int, core: tuple[str, ...], offset: int) -> int:
    """How many free query words from ``position`` follow ``core`` from ``offset``."""
    length = 0
    while (
        offset + length < len(core)
        and position + length < len(words.words)
        and position + length not in words.used
        and words.words[position + length].folded == core[offset + length]
    ):
        length += 1
    return length


def _at(
    words: Words, position: int, index: _Index, *, partial: bool
) -> tuple[int, list[int]] | None:
    """The entity a name starting at ``position`` designates, with the words it covers."""
    if position in words.used:
        return None
    best: dict[int, tuple[int, bool]] = {}  # entity -> (words matched, whole name)
    for entity_id in index.by_word.get(words.words[position].folded, ()):
        for core in index.names[entity_id]:
            for offset in range(len(core)):
                length = _run(words, position, core, offset)
                whole = offset == 0 and length == len(core)
                if length and (length, whole) > best.get(entity_id, (0, False)):
                    best[entity_id] = (length, whole)
    whole_names = [e for e, (_, whole) in best.items() if whole]
    longest = max((length for length, _ in best.values()), default=0)
    if len(whole_names) == 1:
        entity_id = whole_names[0]
    elif partial and not whole_names:
        candidates = [e for e, (length, _) in best.items() if length == longest]
        matched = [words.words[position + i].folded for i in range(longest)]
        distinctive = [w for w in matched if w not in GENERIC and len(w) >= _MIN_PART_CHARS]
        if len(candidates) != 1 or not distinctive or any(w.isdigit() for w in distinctive):
            return None
        entity_id = candidates[0]
    else:
        return None
    covered = list(range(position, position + best[entity_id][0]))
    return entity_id, covered + _legal_form_after(words, covered[-1] + 1)


def _legal_form_after(words: Words, after: int) -> list[int]:
    free = after < len(words.words) and after not in words.used
    if free and words.words[after].folded in LEGAL_FORMS - {"m", "me", "co"}:
        return [after]
    return []


def _introducers(words: Words, first: int) -> list[int]:
    taken: list[int] = []
    for before in range(first - 1, max(-1, first - 1 - _INTRODUCER_REACH), -1):
        if before in words.used or words.words[before].folded not in _INTRODUCERS:
            break
        taken.insert(0, before)
    return taken
