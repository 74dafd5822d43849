"""Parties in a query: only names of the workspace's own entities (their names and aliases).

A full name is read wherever it stands ("Hydrelle Énergie", legal form optional); part of a
name ("Brenalis" for "Groupe Brenalis") is read when it designates one entity only: a word
two entities share ("Verdane" for Foncière Verdane and Comptoir Verdane) is left in the text,
and so are generic words of company names ("groupe", "banque", "énergie").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from search.conditions._tokens import Words, folded_words

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


# A word more entities than this share designates none of them alone (and is not tried).
MAX_SHARED = 20
# Words read per name and names (the name and its aliases) per entity: a hostile upload's
# 300-character names and piled-up aliases cannot make reading a query slow.
MAX_NAME_WORDS = 12
_MAX_NAME_CHARS = 160
MAX_NAMES = 5
# A part of a name is read only after one of these, or as typed with a capital (not as the
# first word of a longer query): "clause de sécurité" is not the party Sécurité Plus SAS.
_PART_INTRODUCERS = frozenset(
    {"with", "avec", "between", "entre", "involving", "impliquant", "concernant", "regarding",
     "party", "partie"}
)  # fmt: skip


@dataclass(frozen=True)
class PartyName:
    """An entity as the query may name it; ``key`` its folded name (``Entity.key``)."""

    entity_id: int
    name: str
    aliases: tuple[str, ...] = ()
    key: str = ""


def _core(name: str) -> tuple[str, ...]:
    words = folded_words(name[:_MAX_NAME_CHARS])
    return tuple(w for w in words if w not in LEGAL_FORMS)[:MAX_NAME_WORDS]


def _cores(party: PartyName) -> list[tuple[str, ...]]:
    from_key = tuple(w for w in party.key.split() if w not in LEGAL_FORMS) if party.key else ()
    aliases = party.aliases[: MAX_NAMES - 1]
    names = [from_key[:MAX_NAME_WORDS] or _core(party.name), *map(_core, aliases)]
    return [core for core in dict.fromkeys(names) if core]


@dataclass(frozen=True)
class PartyIndex:
    names: dict[int, list[tuple[str, ...]]]  # entity id -> its names' core words
    by_word: dict[str, set[int]]  # core word -> entities whose names hold it
    whole: dict[tuple[str, ...], set[int]] = field(default_factory=dict)  # name -> entities


def _distinctive(word: str, shared_by: int) -> bool:
    return (
        word not in GENERIC
        and len(word) >= _MIN_PART_CHARS
        and not word.isdigit()
        and shared_by <= MAX_SHARED
    )


def party_index(parties: Sequence[PartyName], present: set[str]) -> PartyIndex:
    """The parties the query may name: every word of a name in the query, or one of its
    distinctive words (the others cannot match, whatever the workspace's size)."""
    cores = {party.entity_id: _cores(party) for party in parties}
    shared = Counter(word for names in cores.values() for word in {w for c in names for w in c})
    names: dict[int, list[tuple[str, ...]]] = {}
    by_word: dict[str, set[int]] = {}
    wholes: dict[tuple[str, ...], set[int]] = {}
    for entity_id, entity_cores in cores.items():
        for core in entity_cores:
            whole = set(core) <= present
            if whole or any(w in present and _distinctive(w, shared[w]) for w in core):
                names.setdefault(entity_id, []).append(core)
                for word in core:
                    by_word.setdefault(word, set()).add(entity_id)
                if whole:
                    wholes.setdefault(core, set()).add(entity_id)
    return PartyIndex(names, by_word, wholes)


def read_parties(words: Words, index: PartyIndex, *, partial: bool) -> list[tuple[int, list[int]]]:
    """(entity id, word indexes) for each workspace party the query names (``index``, built
    once by :func:`party_index`): full names only, or (``partial``) also a part of a name
    that designates one entity."""
    if not index.names:
        return []
    found: list[tuple[int, list[int]]] = []
    position = 0
    while position < len(words.words):
        read = _at(words, position, index, partial=partial)
        if read is None:
            position += 1
            continue
        entity_id, covered = read
        taken = words.introduced(min(covered), _INTRODUCERS, _INTRODUCER_REACH) + covered
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
    words: Words, position: int, index: PartyIndex, *, partial: bool
) -> tuple[int, list[int]] | None:
    """The entity a name starting at ``position`` designates, with the words it covers."""
    if position in words.used:
        return None
    found = _whole_at(words, position, index)
    if found is None and partial:
        found = _part_at(words, position, index)
    if found is None:
        return None
    entity_id, length = found
    covered = list(range(position, position + length))
    return entity_id, covered + _legal_form_after(words, covered[-1] + 1)


def _whole_at(words: Words, position: int, index: PartyIndex) -> tuple[int, int] | None:
    """The one entity whose whole name (the longest found) starts at ``position``: one
    lookup per length, whatever the number of parties."""
    free: list[str] = []
    for at in range(position, min(len(words.words), position + MAX_NAME_WORDS)):
        if at in words.used:
            break
        free.append(words.words[at].folded)
    for length in range(len(free), 0, -1):
        entities = index.whole.get(tuple(free[:length]))
        if not entities:
            continue
        # A name of one word ("Orange") is read as typed as a name, as a part would be.
        if len(entities) != 1 or (length == 1 and not _names_a_party(words, position)):
            return None
        return next(iter(entities)), length
    return None


def _part_at(words: Words, position: int, index: PartyIndex) -> tuple[int, int] | None:
    """The one entity a distinctive part of a name starting at ``position`` designates."""
    entities = index.by_word.get(words.words[position].folded, set())
    if not entities or len(entities) > MAX_SHARED:
        return None
    best: dict[int, int] = {}  # entity -> words matched
    for entity_id in entities:
        for core in index.names[entity_id]:
            for offset in range(len(core)):
                best[entity_id] = max(best.get(entity_id, 0), _run(words, position, core, offset))
    longest = max(best.values(), default=0)
    candidates = [e for e, length in best.items() if length == longest]
    matched = [words.words[position + i].folded for i in range(longest)]
    distinctive = [w for w in matched if w not in GENERIC and len(w) >= _MIN_PART_CHARS]
    if len(candidates) != 1 or not distinctive or any(w.isdigit() for w in distinctive):
        return None
    if not _names_a_party(words, position):
        return None
    return candidates[0], longest


def _names_a_party(words: Words, position: int) -> bool:
    """Is the word at ``position`` written as a name: after "with", "entre"…, or with a
    capital (the query's first word only when alone), never the end of "non-exclusive"?"""
    word = words.words[position]
    if word.start and words.text[word.start - 1] in "-\u2010\u2011":
        return False
    if position and words.words[position - 1].folded in _PART_INTRODUCERS:
        return True
    typed = words.text[word.start : word.end]
    if not typed[:1].isupper():
        return False
    # The query's first word has a capital as any sentence does: read when alone, in
    # capitals ("ACME") or before a legal form ("Orange SA").
    return (
        position > 0
        or len(words.words) == 1
        or (len(typed) > 1 and typed.isupper())
        or bool(_legal_form_after(words, position + 1))
    )


def _legal_form_after(words: Words, after: int) -> list[int]:
    free = after < len(words.words) and after not in words.used
    if free and words.words[after].folded in LEGAL_FORMS - {"m", "me", "co"}:
        return [after]
    return []
