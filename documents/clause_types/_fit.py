"""Fitting the classifier: logistic regressions (scikit-learn, the words as a scipy sparse
matrix), thresholds per type chosen on a validation part of the training
contracts, scores on held-out contracts."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from sklearn.linear_model import LogisticRegression

from documents.clause_types._classifier import Classifier
from documents.clause_types._lexical import lexical_rows

# The inverse of the L2 penalty's strength, and liblinear's iterations (it converges in far
# fewer on these examples).
REGULARISATION_C = 4.0
MAX_ITER = 300
THRESHOLD_GRID = tuple(round(0.05 * step, 2) for step in range(2, 19))
DEFAULT_THRESHOLD = 0.5
# The words are hashed into 2**LEXICAL_BITS columns (16,384: +0.14 macro-F1 on CUAD's held-out
# contracts over the embedding alone with the packaged MiniLM).
LEXICAL_BITS = 14


@dataclass(frozen=True)
class Example:
    """One labelled text: its types (none: a negative), and the contract it comes from, so
    that the held-out split never shares a contract with the training one."""

    text: str
    labels: frozenset[str]
    group: str
    always_train: bool = False  # our definitions and ACORD train queries: never held out


def label_matrix(examples: Sequence[Example], keys: Sequence[str]) -> NDArray[np.float32]:
    columns = {key: index for index, key in enumerate(keys)}
    matrix = np.zeros((len(examples), len(keys)), dtype=np.float32)
    for row, example in enumerate(examples):
        for label in example.labels:
            matrix[row, columns[label]] = 1.0
    return matrix


def split_by_group(
    examples: Sequence[Example], held_out: float, seed: int
) -> tuple[list[int], list[int]]:
    """Row indexes (train, held out): whole contracts go to one side."""
    groups = sorted({e.group for e in examples if not e.always_train})
    random.Random(seed).shuffle(groups)  # noqa: S311 (a reproducible split, not a secret)
    chosen = set(groups[: round(len(groups) * held_out)])
    train = [i for i, e in enumerate(examples) if e.always_train or e.group not in chosen]
    test = [i for i, e in enumerate(examples) if not e.always_train and e.group in chosen]
    return train, test


# The embeddings alone, or a scipy sparse matrix with the hashed words beside them.
Features: TypeAlias = NDArray[np.float32] | Any


def features(vectors: NDArray[np.float32], texts: Sequence[str], bits: int) -> Features:
    """The embeddings, and the texts' hashed words beside them when ``bits``."""
    if not bits:
        return vectors
    rows = lexical_rows(texts, bits)
    indptr = np.cumsum([0] + [columns.size for columns, _ in rows])
    words = sparse.csr_matrix(
        (
            np.concatenate([values for _, values in rows]) if rows else np.zeros(0, np.float32),
            np.concatenate([columns for columns, _ in rows]) if rows else np.zeros(0, np.int64),
            indptr,
        ),
        shape=(len(texts), 1 << bits),
        dtype=np.float32,
    )
    return sparse.hstack([sparse.csr_matrix(vectors), words], format="csr")


def fit(
    vectors: Features, labels: NDArray[np.float32]
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """One logistic regression per type (scikit-learn's liblinear, L2, classes balanced); a
    type without a positive example is never predicted."""
    weights = np.zeros((vectors.shape[1], labels.shape[1]), dtype=np.float32)
    bias = np.full(labels.shape[1], -30.0, dtype=np.float32)
    for column in range(labels.shape[1]):
        truth = labels[:, column] > 0
        if truth.all() or not truth.any():
            continue
        model = LogisticRegression(
            C=REGULARISATION_C, class_weight="balanced", solver="liblinear", max_iter=MAX_ITER
        )
        model.fit(vectors, truth)
        weights[:, column] = model.coef_[0]
        bias[column] = model.intercept_[0]
    return weights, bias


def best_thresholds(
    probabilities: NDArray[np.float32], labels: NDArray[np.float32]
) -> NDArray[np.float32]:
    """Per type, the threshold of the grid with the best F1 (the default when no positive)."""
    thresholds = np.full(labels.shape[1], DEFAULT_THRESHOLD, dtype=np.float32)
    for column in range(labels.shape[1]):
        truth = labels[:, column] > 0
        if not truth.any():
            continue
        scores = [rates(probabilities[:, column] >= t, truth)[2] for t in THRESHOLD_GRID]
        thresholds[column] = THRESHOLD_GRID[int(np.argmax(scores))]
    return thresholds


def rates(predicted: NDArray[np.bool_], truth: NDArray[np.bool_]) -> tuple[float, float, float]:
    """Precision, recall and F1 of ``predicted`` against ``truth`` (0.0 where undefined)."""
    hits = float((predicted & truth).sum())
    precision = hits / predicted.sum() if predicted.any() else 0.0
    recall = hits / truth.sum() if truth.any() else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


# Given the classifier fitted without the validation contracts, and those contracts (their
# training groups): the presence thresholds read on them (see ``._presence``).
Presence: TypeAlias = Callable[[Classifier, set[str]], NDArray[np.float32]]


def train_classifier(
    vectors: NDArray[np.float32],
    examples: Sequence[Example],
    keys: Sequence[str],
    seed: int = 13,
    lexical_bits: int = LEXICAL_BITS,
    presence: Presence | None = None,
) -> Classifier:
    """Thresholds from a validation fifth of the training contracts (the tags', and with
    ``presence`` the contracts'), then weights from all."""
    labels = label_matrix(examples, keys)
    matrix = features(vectors, [e.text for e in examples], lexical_bits)
    inner_train, validation = split_by_group(examples, 0.2, seed)
    weights, bias = fit(matrix[inner_train], labels[inner_train])
    logits = np.clip(np.asarray(matrix[validation] @ weights + bias), -30, 30)
    probabilities = 1.0 / (1.0 + np.exp(-logits))
    thresholds = best_thresholds(probabilities.astype(np.float32), labels[validation])
    contracts = None
    if presence is not None:
        inner = Classifier(tuple(keys), weights, bias, thresholds, lexical_bits)
        contracts = presence(inner, {examples[i].group for i in validation})
    weights, bias = fit(matrix, labels)
    return Classifier(tuple(keys), weights, bias, thresholds, lexical_bits, contracts)


def scores(
    classifier: Classifier, vectors: NDArray[np.float32], examples: Sequence[Example]
) -> dict[str, object]:
    """Per-type precision / recall / F1 on held-out examples, with micro and macro averages
    (macro over the types the held-out examples have)."""
    labels = label_matrix(examples, classifier.keys) > 0
    texts = [e.text for e in examples]
    predicted = classifier.probabilities(vectors, texts) >= classifier.thresholds
    per_type: dict[str, dict[str, float]] = {}
    for column, key in enumerate(classifier.keys):
        precision, recall, f1 = rates(predicted[:, column], labels[:, column])
        per_type[key] = {
            "precision": round(precision, 3),
            "recall": round(recall, 3),
            "f1": round(f1, 3),
            "support": int(labels[:, column].sum()),
        }
    micro = rates(predicted.ravel(), labels.ravel())
    supported = [row for row in per_type.values() if row["support"]]
    return {
        "per_type": per_type,
        "micro": {
            "precision": round(micro[0], 3),
            "recall": round(micro[1], 3),
            "f1": round(micro[2], 3),
        },
        "macro": {
            name: round(float(np.mean([row[name] for row in supported])), 3) if supported else 0.0
            for name in ("precision", "recall", "f1")
        },
    }
