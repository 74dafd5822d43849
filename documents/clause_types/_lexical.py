"""The words a clause is written in, as hashed features beside its embedding.

A small encoder's vector blurs the terms that decide many clause types ("most favored",
"change of control", "non-solicit"): words and word pairs, hashed into ``2**bits`` columns
(CRC-32, stable across processes and installs), log-scaled counts, unit length. The same
function reads training texts, chunk windows and queries, so what was learnt is what is read.
"""

from __future__ import annotations

import itertools
import re
import zlib
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

# Words of two letters or more, French accents included (the text is lower-cased first).
_WORD = re.compile(r"[a-zà-öø-ÿœ]{2,}")
# Characters of a text read for its words: a window or a chunk is shorter; a query too.
MAX_CHARS = 20_000


def lexical_rows(
    texts: Sequence[str], bits: int
) -> list[tuple[NDArray[np.int64], NDArray[np.float32]]]:
    """Per text, its hashed columns and their values (unit length; empty for no word)."""
    mask = (1 << bits) - 1
    rows = []
    for text in texts:
        words = _WORD.findall(text[:MAX_CHARS].lower())
        counts: dict[int, int] = {}
        for gram in (*words, *(f"{a} {b}" for a, b in itertools.pairwise(words))):
            column = zlib.crc32(gram.encode()) & mask
            counts[column] = counts.get(column, 0) + 1
        columns = np.fromiter(counts, dtype=np.int64, count=len(counts))
        values = 1.0 + np.log(np.fromiter(counts.values(), dtype=np.float32, count=len(counts)))
        norm = float(np.linalg.norm(values))
        rows.append((columns, (values / norm if norm else values).astype(np.float32)))
    return rows


def lexical_logits(
    texts: Sequence[str], bits: int, weights: NDArray[np.float32]
) -> NDArray[np.float32]:
    """The texts' hashed features times ``weights`` (``2**bits`` rows, one column per type)."""
    logits = np.zeros((len(texts), weights.shape[1]), dtype=np.float32)
    for row, (columns, values) in enumerate(lexical_rows(texts, bits)):
        if columns.size:
            logits[row] = values @ weights[columns]
    return logits
