"""The clause-type classifier: one logistic regression per type over a text's embedding and,
when trained with them, its hashed words (:mod:`._lexical`).

Numpy only at run time. A classifier is only valid for the embedding model it was trained on.
Heading cues (a heading or opening words such as "Indemnification.") raise a type's confidence
to ``CUE_CONFIDENCE``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from documents.clause_types._lexical import lexical_logits
from documents.clause_types._taxonomy import BY_KEY, CUES, NOT_A_TOPIC

# A cue in the heading or the opening words counts as this confidence at least.
CUE_CONFIDENCE = 0.6
# Characters of a chunk's text read for cues when it has no heading of its own.
OPENING_CHARS = 80
# Confidences are stored rounded: they are shown and multiplied, never compared finely.
DECIMALS = 3
# What tagging stores; part of the version, so a change of it re-tags every chunk.
TAGGING_FORMAT = 3  # 3: articles read in windows, with their words
# Family likelihoods below this are not stored (the prior would add next to nothing).
FAMILY_FLOOR = 0.05


@dataclass(frozen=True)
class Classifier:
    keys: tuple[str, ...]
    weights: NDArray[np.float32]  # (dimension + 2**lexical_bits, types)
    bias: NDArray[np.float32]  # (types,)
    thresholds: NDArray[np.float32]  # (types,): tagged at or above
    lexical_bits: int = 0  # 0: the embedding only
    # (types,): a contract has the type when an article reaches it (:mod:`._presence`);
    # None: the tags' thresholds (a classifier trained without whole contracts).
    presence: NDArray[np.float32] | None = None

    def presence_thresholds(self) -> dict[str, float]:
        """Per type, the confidence an article needs for the contract to have the type."""
        chosen = self.thresholds if self.presence is None else self.presence
        return {key: float(value) for key, value in zip(self.keys, chosen, strict=True)}

    @property
    def dimension(self) -> int:
        """The embedding's dimension (the rows before the hashed words' ones)."""
        return int(self.weights.shape[0]) - (1 << self.lexical_bits if self.lexical_bits else 0)

    @property
    def version(self) -> str:
        """A fingerprint of the weights: chunks tagged by another version are tagged again."""
        digest = hashlib.sha256(self.weights.tobytes() + self.bias.tobytes())
        digest.update(self.thresholds.tobytes() + ",".join(self.keys).encode())
        digest.update(f"format {TAGGING_FORMAT} bits {self.lexical_bits}".encode())
        return digest.hexdigest()[:16]

    def probabilities(
        self, vectors: NDArray[np.float32], texts: Sequence[str]
    ) -> NDArray[np.float32]:
        """Per row, each type's probability, from the text's embedding and its words."""
        dimension = self.dimension
        logits = np.asarray(vectors, dtype=np.float32) @ self.weights[:dimension] + self.bias
        if self.lexical_bits:
            logits += lexical_logits(texts, self.lexical_bits, self.weights[dimension:])
        probabilities: NDArray[np.float32] = (
            1.0 / (1.0 + np.exp(-np.clip(logits, -30, 30)))
        ).astype(np.float32)
        return probabilities

    def with_cues(self, probabilities: NDArray[np.float32], texts: Sequence[str]) -> None:
        """Raise, in place, the types whose cue the text (a heading, opening words) names, to
        ``CUE_CONFIDENCE`` or the type's threshold if higher."""
        columns = {key: index for index, key in enumerate(self.keys)}
        for row, text in enumerate(texts):
            for key, pattern in CUES.items():
                if key in columns and text and pattern.search(text):
                    column = columns[key]
                    # At least the type's threshold: a named heading is always tagged.
                    floor = max(CUE_CONFIDENCE, float(self.thresholds[column]))
                    probabilities[row, column] = max(probabilities[row, column], floor)

    def tags(self, probabilities: NDArray[np.float32]) -> list[dict[str, float]]:
        """Per row, the types at or above their threshold, with their confidence."""
        tagged = []
        for row in probabilities:
            chosen = np.nonzero(row >= self.thresholds)[0]
            tagged.append({self.keys[i]: round(float(row[i]), DECIMALS) for i in chosen})
        return tagged

    def family_scores(self, probabilities: NDArray[np.float32]) -> dict[str, float]:
        """One row's likelihood per family: its most likely type in the family, rounded,
        families under ``FAMILY_FLOOR`` left out."""
        scores: dict[str, float] = {}
        for key, value in zip(self.keys, probabilities, strict=True):
            family = family_of(key)
            scores[family] = max(scores.get(family, 0.0), round(float(value), DECIMALS))
        return {family: value for family, value in scores.items() if value >= FAMILY_FLOOR}

    def to_bytes(self) -> bytes:
        return np.concatenate([self.weights.ravel(), self.bias]).astype("<f4").tobytes()

    @classmethod
    def from_stored(
        cls,
        keys: Sequence[str],
        blob: bytes,
        thresholds: Sequence[float],
        lexical_bits: int = 0,
        presence: Sequence[float] = (),
    ) -> Classifier:
        values = np.frombuffer(blob, dtype="<f4")
        count = len(keys)
        if count == 0 or values.size % count:
            raise ValueError("stored classifier does not match its keys")
        weights = values[: values.size - count].reshape(-1, count)
        return cls(
            keys=tuple(keys),
            weights=weights.astype(np.float32),
            bias=values[values.size - count :].astype(np.float32),
            thresholds=np.asarray(thresholds, dtype=np.float32),
            lexical_bits=lexical_bits,
            presence=np.asarray(presence, dtype=np.float32) if len(presence) == count else None,
        )


def cue_text(heading: str, text: str) -> str:
    """What cues are read in: the heading, else the chunk's opening words."""
    return heading or text[:OPENING_CHARS]


def family_of(key: str) -> str:
    entry = BY_KEY.get(key)
    return entry.family if entry else key


def family_prior(query_families: dict[str, float], chunk_families: dict[str, float]) -> float:
    """How well a chunk agrees with the query's likely families: the best over families of
    p_query(family) · p_chunk(family). Soft on the chunk's side (its stored likelihoods, not
    only its tagged types): a clause the classifier hesitates on is lifted a little, not
    left out (measured on ACORD's train queries: better than matching tagged types only).
    Families in ``NOT_A_TOPIC`` (titles, parties, dates) do not count."""
    return max(
        (
            query_families.get(family, 0.0) * value
            for family, value in chunk_families.items()
            if family not in NOT_A_TOPIC
        ),
        default=0.0,
    )
