"""An article read in windows: the classifier learnt from single clauses (CUAD's excerpts,
a few sentences each), so an article holding several is read a few sentences at a time and
carries the types of any of its windows. The article stays what is shown and cited."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from documents.clause_types._classifier import Classifier

# Windows are packed sentences up to this many characters (CUAD excerpts: a few hundred).
WINDOW_CHARS = 600
# An article at most this long is read whole (its stored embedding): no window is encoded.
WHOLE_UP_TO = 900
# Windows read per article at most: a very long article is read in its first ones only.
MAX_WINDOWS = 24
_SENTENCE_END = re.compile(r"(?<=[.;:!?])\s+|\n\s*")


def windows(text: str) -> list[str]:
    """The article's windows (none when it is short enough to be read whole)."""
    text = text.strip()
    if len(text) <= WHOLE_UP_TO:
        return []
    found: list[str] = []
    current = ""
    for sentence in _sentences(text):
        if current and len(current) + 1 + len(sentence) > WINDOW_CHARS:
            found.append(current)
            if len(found) == MAX_WINDOWS:
                return found
            current = sentence
        else:
            current = f"{current} {sentence}" if current else sentence
    if current:
        found.append(current)
    return found[:MAX_WINDOWS]


def _sentences(text: str) -> list[str]:
    """Sentences, a sentence longer than a window cut at spaces into window-sized pieces."""
    pieces = []
    for sentence in _SENTENCE_END.split(text):
        sentence = sentence.strip()
        while len(sentence) > WINDOW_CHARS:
            cut = sentence.rfind(" ", 0, WINDOW_CHARS)
            cut = cut if cut > WINDOW_CHARS // 2 else WINDOW_CHARS
            pieces.append(sentence[:cut].strip())
            sentence = sentence[cut:].strip()
        if sentence:
            pieces.append(sentence)
    return pieces


def article_probabilities(
    classifier: Classifier,
    texts: Sequence[str],
    vectors: NDArray[np.float32],
    encode: Callable[[list[str]], Any],
) -> NDArray[np.float32]:
    """Each article's probability per type: the best of the whole article (its stored
    ``vectors``) and of its windows (encoded here with ``encode``, the active model's)."""
    probabilities = classifier.probabilities(vectors, texts)
    pieces = [(row, window) for row, text in enumerate(texts) for window in windows(text)]
    if pieces:
        window_texts = [window for _, window in pieces]
        window_vectors = np.asarray(encode(window_texts), dtype=np.float32)
        for (row, _), values in zip(
            pieces, classifier.probabilities(window_vectors, window_texts), strict=True
        ):
            np.maximum(probabilities[row], values, out=probabilities[row])
    return probabilities
