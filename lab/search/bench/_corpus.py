"""The synthetic text and vectors: topics, their clause sentences and clustered embeddings.

Vectors are clustered around topic centroids that the configured encoder itself embeds, so
queries land near their topics and the HNSW graph has the structure of real data.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from core.normalize import fold_accents
from lab.search.bench._vocabulary import FILLERS_EN, FILLERS_FR, THEMES, Theme

TOPICS = 200
SENTENCES_PER_TOPIC = 48
# Share of a chunk vector that is noise (norm of the noise relative to the unit centroid):
# ~0.8 cosine to its own centroid, like paraphrases of one clause in real contracts.
NOISE_NORM = 0.75


@dataclass(frozen=True)
class Topic:
    theme: Theme
    phrases_fr: tuple[str, ...]
    phrases_en: tuple[str, ...]


def make_topics(seed: int) -> list[Topic]:
    """``TOPICS`` topics: each a theme and a seeded subset of its phrases."""
    rng = random.Random(seed + 1)  # noqa: S311
    topics = []
    for index in range(TOPICS):
        theme = THEMES[index % len(THEMES)]
        topics.append(Topic(theme, tuple(rng.sample(theme.fr, 4)), tuple(rng.sample(theme.en, 4))))
    return topics


def topic_centroids(topics: list[Topic], encode: Callable[[list[str]], Any]) -> NDArray[np.float32]:
    """Unit centroids: the encoder's embeddings of each topic's phrases (both languages)."""
    texts = [
        f"{t.theme.fr_title} / {t.theme.en_title}: " + "; ".join(t.phrases_fr + t.phrases_en)
        for t in topics
    ]
    centroids = np.asarray(encode(texts), dtype=np.float32)
    norms = np.linalg.norm(centroids, axis=1, keepdims=True)
    unit: NDArray[np.float32] = (centroids / np.maximum(norms, 1e-12)).astype(np.float32)
    return unit


def vector_rows(
    topic_ids: NDArray[Any], centroids: NDArray[Any], rng: np.random.Generator
) -> list[bytes]:
    """pgvector's binary input (dim, unused, big-endian float4s) of clustered unit vectors."""
    count, dimension = len(topic_ids), centroids.shape[1]
    vectors = centroids[topic_ids] + rng.standard_normal(
        (count, dimension), dtype=np.float32
    ) * np.float32(NOISE_NORM / np.sqrt(dimension))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    big_endian = vectors.astype(">f4")
    header = struct.pack(">HH", dimension, 0)
    return [header + row.tobytes() for row in big_endian]


def _sentence(topic: Topic, language: str, rng: random.Random) -> str:
    """One clause-like sentence: a connecting phrase, the topic's phrases, maybe a stray one."""
    theme = topic.theme
    own, wider, fillers = (
        (topic.phrases_fr, theme.fr, FILLERS_FR)
        if language == "fr"
        else (topic.phrases_en, theme.en, FILLERS_EN)
    )
    words = [rng.choice(fillers), rng.choice(own), rng.choice(wider)]
    if rng.random() < 0.3:
        # A stray phrase from another theme, as real clauses cross-reference each other.
        other = rng.choice(THEMES)
        words.append(rng.choice(other.fr if language == "fr" else other.en))
    sentence = ", ".join(words)
    return sentence[0].upper() + sentence[1:] + "."


@dataclass(frozen=True)
class SentencePool:
    """Pre-built sentences (and their folded form) per (topic, language).

    Drawing whole sentences by index keeps generation at numpy speed for millions of chunks;
    48 variants per topic still give each chunk its own mix of phrases.
    """

    sentences: dict[tuple[int, str], list[str]]
    folded: dict[tuple[int, str], list[str]]

    @classmethod
    def build(cls, topics: list[Topic], seed: int) -> SentencePool:
        rng = random.Random(seed + 4)  # noqa: S311
        sentences = {
            (index, language): [_sentence(topic, language, rng) for _ in range(SENTENCES_PER_TOPIC)]
            for index, topic in enumerate(topics)
            for language in ("fr", "en")
        }
        folded = {key: [fold_accents(text) for text in texts] for key, texts in sentences.items()}
        return cls(sentences, folded)

    def chunk(
        self, topics: list[Topic], topic: int, language: str, ordinal: int, picks: list[int]
    ) -> tuple[str, str, str]:
        """(heading, text, folded text) of one article made of the ``picks`` sentences."""
        theme = topics[topic].theme
        title = theme.fr_title if language == "fr" else theme.en_title
        heading = f"ARTICLE {ordinal + 1} — {title.upper()}"
        sentences, folded = self.sentences[topic, language], self.folded[topic, language]
        text = f"{heading}\n\n" + " ".join(sentences[i] for i in picks)
        folded_text = f"{fold_accents(heading)}\n\n" + " ".join(folded[i] for i in picks)
        return heading, text, folded_text
