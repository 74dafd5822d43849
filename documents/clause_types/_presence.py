"""Whether a contract has a clause of a type: one of its articles reads as that type with at
least the type's presence threshold, or its heading names the type.

The tags' thresholds are chosen one article at a time; a contract of fifty articles has
fifty chances of one false tag, so the contract's bar is set on whole contracts: the
validation fifth of the training contracts, read as ingestion reads them (chunked, long
articles in windows) by the classifier fitted without them. Per type, the threshold at or
above the tag's with the best F-beta there, beta 0.5: a false flag costs a lawyer more than a
missed clause, and precision weighs twice recall. (Taking the lowest threshold whose
precision reaches 0.8 gave, on those contracts, macro precision 0.686 and F1 0.621; F0.5,
0.722 and 0.623.) A type fewer than ``MIN_POSITIVES`` of those contracts have is too rare
there to measure a precision: its bar is the lowest that flags none of the contracts without
it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from documents.chunking import split_into_chunks
from documents.clause_types._classifier import Classifier
from documents.clause_types._fit import rates
from documents.clause_types._taxonomy import heading_names
from documents.clause_types._windows import article_probabilities

PRESENCE_BETA = 0.5
PRESENCE_GRID = (*(round(0.05 * step, 2) for step in range(1, 20)), 0.97, 0.99)
MIN_POSITIVES = 3

Encode = Callable[[list[str]], NDArray[np.float32]]


@dataclass(frozen=True)
class ContractSample:
    """One whole contract of the validation part, and the types its annotations give it."""

    path: Path
    labels: frozenset[str]


def contract_scores(
    classifier: Classifier, contracts: Sequence[ContractSample], encode: Encode
) -> NDArray[np.float32]:
    """Per contract, each type's best article probability (1.0 where a heading names it)."""
    scores = np.zeros((len(contracts), len(classifier.keys)), dtype=np.float32)
    for row, contract in enumerate(contracts):
        text = contract.path.read_text(encoding="utf-8", errors="replace")
        drafts = split_into_chunks(text, [0])
        if not drafts:
            continue
        texts = [draft.text for draft in drafts]
        probabilities = article_probabilities(classifier, texts, encode(texts), encode)
        scores[row] = probabilities.max(axis=0)
        for column, key in enumerate(classifier.keys):
            if any(heading_names(key, draft.heading) for draft in drafts):
                scores[row, column] = 1.0
    return scores


def presence_thresholds(
    scores: NDArray[np.float32], labels: NDArray[np.bool_], tag_thresholds: NDArray[np.float32]
) -> NDArray[np.float32]:
    """Per type, the contract-level threshold (see the module's docstring)."""
    chosen = tag_thresholds.astype(np.float32).copy()
    for column in range(labels.shape[1]):
        truth = labels[:, column]
        floor = float(tag_thresholds[column])
        grid = [floor, *(t for t in PRESENCE_GRID if t > floor)]
        if truth.sum() < MIN_POSITIVES:
            # Compared as stored, in float32.
            best = scores[~truth, column].max(initial=0.0)
            chosen[column] = next((t for t in grid if np.float32(t) > best), grid[-1])
            continue
        rows = [rates(scores[:, column] >= t, truth) for t in grid]
        chosen[column] = grid[int(np.argmax([_f_beta(p, r) for p, r, _ in rows]))]
    return chosen


def _f_beta(precision: float, recall: float) -> float:
    weight = PRESENCE_BETA * PRESENCE_BETA
    total = weight * precision + recall
    return (1 + weight) * precision * recall / total if total else 0.0


def presence_report(
    keys: Sequence[str],
    scores: NDArray[np.float32],
    labels: NDArray[np.bool_],
    tag_thresholds: NDArray[np.float32],
    chosen: NDArray[np.float32],
) -> dict[str, object]:
    """The validation contracts' per-type precision and recall, at the tags' thresholds and
    at the presence thresholds chosen."""
    per_type = {}
    for column, key in enumerate(keys):
        truth = labels[:, column]
        before = rates(scores[:, column] >= tag_thresholds[column], truth)
        after = rates(scores[:, column] >= chosen[column], truth)
        per_type[key] = {
            "contracts_with_it": int(truth.sum()),
            "threshold": round(float(chosen[column]), 2),
            "precision": round(after[0], 3),
            "recall": round(after[1], 3),
            "precision_at_tag_threshold": round(before[0], 3),
            "recall_at_tag_threshold": round(before[1], 3),
        }
    return {
        "contracts": int(labels.shape[0]),
        "chosen_by": f"best F{PRESENCE_BETA:g} at or above the tag's threshold",
        "per_type": per_type,
    }
