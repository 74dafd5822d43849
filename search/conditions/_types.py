"""Contract types in a query, from the contract-type vocabulary in French and English, plural
forms included: "baux commerciaux" -> commercial_lease, "contrats de distribution et de
franchise" -> distribution and franchise, "license agreements" -> licence.

A type is read from its name as a contract ("contrat de licence", "supply agreement") or from
a short list of words that name a contract on their own ("bail", "franchise", "avenant");
a clause topic is not a type: "clause de confidentialité", "franchise de loyer" and
"distribution rights" stay in the text. Only types the workspace has are read.
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from dataclasses import dataclass

import re2  # type: ignore[import-untyped]  # google-re2 ships no type hints

from documents.extraction import CONTRACT_TYPES
from search.conditions._tokens import Words

# A label is a contract's name when it holds one of these words (or has two words or more).
_HEADS = frozenset(
    {"contrat", "convention", "accord", "agreement", "contract", "lettre", "pacte",
     "protocole", "acte", "bail", "lease", "deed"}
)  # fmt: skip
# Two-word labels that name a clause as often as a contract.
_TOPICS = frozenset({"non concurrence", "propriete intellectuelle"})
# Words that name a contract on their own, or the usual names the labels lack.
_EXTRA = {
    "commercial_lease": ("baux commerciaux", "contrat de bail commercial"),
    "lease": ("baux", "contrat de bail", "contrat de location"),
    "franchise": ("franchise",),
    "distribution": ("distribution",),
    "amendment": ("avenant",),
    "nda": ("nda", "contrat de confidentialite"),
    "services": ("lettre de mission", "convention d honoraires", "contrat de prestation",
                 "contrat de services", "contrat de prestation de services"),
    "subcontracting": ("sous traitance",),
    "share_transfer": ("cession de parts", "cession de parts sociales", "cession d actions"),
    "loan": ("contrat de credit", "credit agreement"),
    "licence": ("license agreement",),
}  # fmt: skip
# A bare word a complement turns into something else: "franchise de loyer", "distribution
# de dividendes", "distribution rights". ("licence" alone is a clause's topic as often as a
# contract: "exclusive licence", "licence grant"; only "contrat de licence" and the like.)
_GUARDED = frozenset({"franchise", "distribution", "sous traitance"})
_COMPLEMENTS = frozenset(
    {"de", "d", "du", "des", "of", "rights", "right", "fee", "fees", "royalty", "royalties",
     "period", "periode", "grant", "granted"}
)  # fmt: skip
_CLAUSE_WORDS = frozenset(
    {"clause", "clauses", "article", "articles", "obligation", "obligations", "provision",
     "provisions", "stipulation", "stipulations", "covenant", "covenants"}
)  # fmt: skip
_INTRODUCERS = frozenset(
    {"de", "d", "du", "des", "au", "aux", "les", "the", "type", "types", "of", "en"}
)
_INTRODUCER_REACH = 2


@dataclass(frozen=True)
class _Phrase:
    key: str
    folded: str
    pattern: object  # a compiled RE2 pattern


def _plural(word: str) -> str:
    if word == "bail":
        return "(?:bail|baux)"
    if word.endswith("al"):
        return f"(?:{word}|{word[:-2]}aux)s?"
    if word.endswith(("s", "x", "z")):
        return word
    return f"{word}s?"


def _readable(folded: str) -> bool:
    words = folded.split()
    return folded not in _TOPICS and (len(words) > 1 or bool(_HEADS & set(words)))


@functools.cache
def _phrases() -> tuple[_Phrase, ...]:
    """Every readable name of every type, longest first (built once)."""
    names: dict[str, str] = {}
    for label in CONTRACT_TYPES:
        if label.key == "other":
            continue
        for shown in (label.fr, *label.en.split(" / ")):
            folded = " ".join(word.folded for word in Words.of(shown).words)
            variants = {folded, folded.replace("agreement", "contract")}
            names.update({variant: label.key for variant in variants if _readable(variant)})
        names.update(dict.fromkeys(_EXTRA.get(label.key, ()), label.key))
    ordered = sorted(names, key=lambda name: (-len(name), name))
    return tuple(
        _Phrase(
            names[name],
            name,
            re2.compile(r"\b" + " ".join(_plural(word) for word in name.split()) + r"\b"),
        )
        for name in ordered
    )


def read_types(words: Words, present: Collection[str]) -> list[tuple[str, list[int]]]:
    """(type key, word indexes) for each type of the workspace the query names."""
    if not present:
        return []
    found: list[tuple[str, list[int]]] = []
    for phrase in _phrases():
        if phrase.key not in present:
            continue
        text, indexes = words.free()
        for match in phrase.pattern.finditer(text):  # type: ignore[attr-defined]
            covered = words.covered(match.start(), match.end(), indexes)
            if not covered or any(i in words.used for i in covered):
                continue
            if not _is_contract(words, covered, phrase.folded):
                continue
            taken = words.introduced(min(covered), _INTRODUCERS, _INTRODUCER_REACH) + covered
            if words.negated(min(taken)):
                continue
            words.used.update(taken)
            found.append((phrase.key, sorted(taken)))
    return sorted(found, key=lambda item: min(item[1]))


def _is_contract(words: Words, covered: list[int], folded: str) -> bool:
    """Not a clause's topic: no clause word just before, no complement after a bare word."""
    before = [words.words[i].folded for i in range(max(0, min(covered) - 2), min(covered))]
    if _CLAUSE_WORDS & set(before):
        return False
    after = max(covered) + 1
    following = words.words[after].folded if after < len(words.words) else ""
    if following in _CLAUSE_WORDS:
        return False
    return not (folded in _GUARDED and following in _COMPLEMENTS)
