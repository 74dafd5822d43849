"""Duplicate texts in a data room: exact re-uploads by fingerprint, near copies by MinHash LSH.

Pure functions, no database. Translations are not text duplicates; they are matched elsewhere
(embeddings and metadata).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from datasketch import MinHash, MinHashLSH  # type: ignore[import-untyped]

from core.normalize import fold_accents

_COMBINING_MARKS = re.compile(r"[\u0300-\u036f]")
_NON_WORD = re.compile(r"[\W_]+")
# A fixed seed makes signatures comparable across runs and processes (they may be stored).
_MINHASH_SEED = 1
# Stored signatures are only comparable under the scheme that made them; pin it explicitly.
_MINHASH_SCHEME = "affine32"


@dataclass(frozen=True)
class DuplicateCandidate:
    """A group of documents whose texts are the same ("exact") or nearly so ("near")."""

    ids: frozenset[str]
    kind: str
    score: float


def normalize_for_comparison(text: str) -> str:
    """Casefolded, accent-free text with punctuation and whitespace runs collapsed to a space."""
    folded = fold_accents(text, casefold=True)
    return _NON_WORD.sub(" ", folded).strip()


def text_fingerprint(text: str) -> str:
    """sha256 hex digest of the normalised text: equal for exact duplicates."""
    return hashlib.sha256(normalize_for_comparison(text).encode("utf-8")).hexdigest()


def _minhash(text: str, *, num_perm: int, shingle_words: int) -> MinHash:
    words = normalize_for_comparison(text).split()
    # Texts shorter than one shingle still get a signature, from the whole text.
    count = max(1, len(words) - shingle_words + 1)
    shingles = {" ".join(words[i : i + shingle_words]).encode("utf-8") for i in range(count)}
    minhash = MinHash(num_perm=num_perm, seed=_MINHASH_SEED, scheme=_MINHASH_SCHEME)
    minhash.update_batch(list(shingles))
    return minhash


def minhash_signature(text: str, *, num_perm: int = 128, shingle_words: int = 5) -> list[int]:
    """MinHash signature of the text's word shingles (datasketch), as plain integers."""
    minhash = _minhash(text, num_perm=num_perm, shingle_words=shingle_words)
    return [int(value) for value in minhash.hashvalues]


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, item: str) -> str:
        self.parent.setdefault(item, item)
        while self.parent[item] != item:
            self.parent[item] = self.parent[self.parent[item]]
            item = self.parent[item]
        return item

    def union(self, left: str, right: str) -> None:
        left_root, right_root = self.find(left), self.find(right)
        if left_root != right_root:
            # The smaller id is the root, which keeps the output deterministic.
            low, high = sorted((left_root, right_root))
            self.parent[high] = low

    def groups(self) -> list[set[str]]:
        members: dict[str, set[str]] = {}
        for item in self.parent:
            members.setdefault(self.find(item), set()).add(item)
        return [group for group in members.values() if len(group) > 1]


def find_text_duplicates(
    docs: Mapping[str, str], *, threshold: float = 0.8, num_perm: int = 128
) -> list[DuplicateCandidate]:
    """Groups of duplicate documents among raw texts, sorted by their smallest id.

    Empty texts (not yet parsed) are never duplicates. See group_duplicates for the grouping.
    """
    texts = {doc_id: text for doc_id, text in docs.items() if normalize_for_comparison(text)}
    return group_duplicates(
        fingerprints={doc_id: text_fingerprint(text) for doc_id, text in texts.items()},
        signatures={
            doc_id: minhash_signature(text, num_perm=num_perm) for doc_id, text in texts.items()
        },
        threshold=threshold,
    )


def group_duplicates(
    *,
    fingerprints: Mapping[str, str],
    signatures: Mapping[str, Sequence[int]],
    threshold: float = 0.8,
) -> list[DuplicateCandidate]:
    """Duplicate groups from stored fingerprints and MinHash signatures, by smallest id.

    Exact groups share a fingerprint. Near groups come from MinHash LSH candidates whose
    estimated Jaccard reaches `threshold` (no pairwise text comparison), closed transitively
    with union-find; a group that is exact only is not repeated as near. Documents missing
    a fingerprint or a signature simply take no part in that half.
    """
    by_fingerprint: dict[str, list[str]] = {}
    for doc_id in sorted(fingerprints):
        by_fingerprint.setdefault(fingerprints[doc_id], []).append(doc_id)
    candidates = [
        DuplicateCandidate(frozenset(ids), "exact", 1.0)
        for ids in by_fingerprint.values()
        if len(ids) > 1
    ]

    # One representative per fingerprint: exact copies need no second look.
    members_of: dict[str, list[str]] = {}
    represented: set[str] = set()
    for doc_id in sorted(signatures):
        fingerprint = fingerprints.get(doc_id)
        if not signatures[doc_id] or (fingerprint and fingerprint in represented):
            continue
        if fingerprint:
            represented.add(fingerprint)
        members_of[doc_id] = by_fingerprint[fingerprint] if fingerprint else [doc_id]
    candidates.extend(_near_groups(members_of, signatures, threshold))
    return sorted(candidates, key=_order)


def _near_groups(
    members_of: Mapping[str, list[str]],
    signatures: Mapping[str, Sequence[int]],
    threshold: float,
) -> list[DuplicateCandidate]:
    """Near-duplicate groups among the representatives (MinHash LSH, then union-find)."""
    minhashes = {rep: _from_signature(signatures[rep]) for rep in members_of}
    sizes = {len(minhash.hashvalues) for minhash in minhashes.values()}
    if len(sizes) != 1:
        # Signatures of different sizes cannot share an index; none at all, nothing to do.
        return []
    lsh = MinHashLSH(threshold=threshold, num_perm=sizes.pop())
    for rep, minhash in minhashes.items():
        lsh.insert(rep, minhash)

    near = _UnionFind()
    edge_scores: dict[tuple[str, str], float] = {}
    for rep, minhash in minhashes.items():
        for other in lsh.query(minhash):
            if other <= rep:
                continue
            score = float(minhash.jaccard(minhashes[other]))
            # LSH is a filter with false positives: the signature estimate decides.
            if score >= threshold:
                near.union(rep, other)
                edge_scores[(rep, other)] = score

    groups = []
    for group in near.groups():
        members = frozenset(member for rep in group for member in members_of[rep])
        score = min(
            edge_score
            for (left, right), edge_score in edge_scores.items()
            if left in group and right in group
        )
        groups.append(DuplicateCandidate(members, "near", round(score, 4)))
    return groups


def _order(candidate: DuplicateCandidate) -> tuple[str, str]:
    return (min(candidate.ids), candidate.kind)


def _from_signature(signature: Sequence[int]) -> MinHash:
    return MinHash(
        num_perm=len(signature),
        seed=_MINHASH_SEED,
        hashvalues=list(signature),
        scheme=_MINHASH_SCHEME,
    )
