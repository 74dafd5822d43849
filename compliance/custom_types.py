"""A playbook's own clause types, learnt from a few examples the firm writes.

An article is of such a type when its heading or opening words match the type's cue, or when
its embedding is closer to the examples' mean than to every type of the shared taxonomy (each
read in each language as the mean of the texts we wrote for it: English label and definition;
French label and clauses). The
examples thus compete with the contract language the product already knows, in the encoder's
own scale: an encoder that puts all French text close together (the packaged English MiniLM)
raises every similarity alike, and the nearest type still decides. A file that sets its own
``threshold`` keeps it (an absolute bar, no competition); without the taxonomy's texts (an
encoder of another size) the bar is learnt from the examples alone (:func:`learnt_threshold`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from compliance.articles import Article
from compliance.patterns import Pattern, PatternClock, PatternRefused, pattern_compile

# A cue reads the opening of an article only.
CUE_CHARS = 200


@dataclass(frozen=True)
class CustomType:
    """A playbook's own clause type: the mean of its examples' embeddings, and a cue.
    ``rivals`` (one normalised row per taxonomy type) replace ``threshold`` when given."""

    key: str
    centroid: Any  # normalised vector
    threshold: float
    cue: Pattern | None = None  # on RE2: linear in the 200 characters it reads
    rivals: Any = None  # matrix, or None: the threshold decides

    def matches(self, article: Article, clock: PatternClock | None = None) -> bool:
        """Whether ``article`` is of the type; the cue's time is charged to ``clock`` when
        given (``PatternTooSlow`` once it is spent)."""
        return self.cued(article, clock) or self.close(article)

    def cued(self, article: Article, clock: PatternClock | None = None) -> bool:
        """Whether the heading or opening words match the cue (the firm's own words)."""
        if self.cue is None:
            return False
        # A heading without a word ("4", a paragraph's "¶ 3") says nothing: read the text.
        titled = any(ch.isalpha() for ch in article.heading)
        opening = (article.heading if titled else article.text)[:CUE_CHARS]
        search = self.cue.search
        return bool(
            search(opening) if clock is None else clock.run(f"cue:{self.key}", search, opening)
        )

    def close(self, article: Article) -> bool:
        """Whether the article's embedding is of the type (nearer than the taxonomy's types,
        or past the threshold)."""
        embedding = article.embedding
        if embedding is None or len(embedding) != len(self.centroid):
            return False
        similarity = float(np.dot(self.centroid, embedding))
        if self.rivals is not None:
            return similarity > float(np.max(self.rivals @ np.asarray(embedding, np.float32)))
        return similarity >= self.threshold


def custom_types(
    entries: list[dict[str, Any]],
    encode: Callable[[list[str]], Any],
    rivals: Any = None,
) -> dict[str, CustomType]:
    """The playbook's clause types, their examples encoded once (the articles' are stored).
    ``rivals``: the taxonomy's types as :func:`type_prototypes` gives them, or None."""
    found = {}
    for entry in entries:
        vectors = np.asarray(encode(list(entry["examples"])), dtype=np.float32)
        centroid = vectors.mean(axis=0)
        centroid /= float(np.linalg.norm(centroid)) or 1.0
        cue = _cue(entry.get("cue"))
        threshold = entry.get("threshold")
        against = None
        if threshold is None:
            threshold = learnt_threshold(vectors)
            if rivals is not None and len(rivals) and rivals.shape[1] == len(centroid):
                against = rivals
        found[entry["key"]] = CustomType(entry["key"], centroid, float(threshold), cue, against)
    return found


def _cue(raw: Any) -> Pattern | None:
    if not raw:
        return None
    try:
        return pattern_compile(str(raw), ignore_case=True)
    except PatternRefused:
        return None  # a cue stored before the bounds: the embedding decides alone


def learnt_threshold(vectors: Any) -> float:
    """How close an article must be to the examples' mean: as close as the least typical
    example is to the mean of the others (leave one out), so the bar follows the embedding
    model's own scale. One example: its similarity to itself is no measure; 0.5."""
    count = len(vectors)
    if count < 2:
        return 0.5
    total = vectors.sum(axis=0)
    similarities = []
    for vector in vectors:
        others = (total - vector) / (count - 1)
        others /= float(np.linalg.norm(others)) or 1.0
        similarities.append(float(np.dot(others, vector)))
    return min(similarities)


def type_prototypes(
    references: Mapping[Any, Sequence[str]], encode: Callable[[list[str]], Any]
) -> Any:
    """One normalised row per type: the mean of its reference texts' embeddings, all encoded
    in one batch."""
    keys = [key for key, texts in references.items() if texts]
    texts = [text for key in keys for text in references[key]]
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    vectors = np.asarray(encode(texts), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True).clip(min=1e-12)
    rows, start = [], 0
    for key in keys:
        end = start + len(references[key])
        mean = vectors[start:end].mean(axis=0)
        rows.append(mean / (float(np.linalg.norm(mean)) or 1.0))
        start = end
    return np.asarray(rows, dtype=np.float32)
