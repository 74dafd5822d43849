"""Fitting the classifier: logistic regressions by gradient descent (numpy), thresholds per
type chosen on a validation part of the training contracts, scores on held-out contracts."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from documents.clause_types._classifier import Classifier

EPOCHS = 300
LEARNING_RATE = 0.05
L2 = 1e-4
# A type's positives weigh at most this many times a negative (rare types still learn).
MAX_POSITIVE_WEIGHT = 10.0
THRESHOLD_GRID = tuple(round(0.05 * step, 2) for step in range(2, 19))
DEFAULT_THRESHOLD = 0.5


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


def fit(
    vectors: NDArray[np.float32], labels: NDArray[np.float32], epochs: int = EPOCHS
) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """One-vs-rest logistic regression (Adam, L2, positives up-weighted per type)."""
    count, dimension = vectors.shape
    types = labels.shape[1]
    positives = labels.sum(axis=0)
    pos_weight = np.clip((count - positives) / np.maximum(positives, 1.0), 1.0, MAX_POSITIVE_WEIGHT)
    sample_weight = 1.0 + labels * (pos_weight - 1.0)
    weights = np.zeros((dimension, types), dtype=np.float32)
    bias = np.zeros(types, dtype=np.float32)
    moments = [np.zeros_like(weights), np.zeros_like(bias)]
    squares = [np.zeros_like(weights), np.zeros_like(bias)]
    for step in range(1, epochs + 1):
        logits = vectors @ weights + bias
        probabilities = 1.0 / (1.0 + np.exp(-np.clip(logits, -30, 30)))
        error = (probabilities - labels) * sample_weight / count
        gradients = [vectors.T @ error + L2 * weights, error.sum(axis=0)]
        for index, (param, gradient) in enumerate(zip((weights, bias), gradients, strict=True)):
            moments[index] = 0.9 * moments[index] + 0.1 * gradient
            squares[index] = 0.999 * squares[index] + 0.001 * gradient**2
            corrected = moments[index] / (1 - 0.9**step)
            scale = np.sqrt(squares[index] / (1 - 0.999**step)) + 1e-8
            param -= (LEARNING_RATE * corrected / scale).astype(np.float32)
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
        scores = [_f1(probabilities[:, column] >= t, truth)[2] for t in THRESHOLD_GRID]
        thresholds[column] = THRESHOLD_GRID[int(np.argmax(scores))]
    return thresholds


def _f1(predicted: NDArray[np.bool_], truth: NDArray[np.bool_]) -> tuple[float, float, float]:
    hits = float((predicted & truth).sum())
    precision = hits / predicted.sum() if predicted.any() else 0.0
    recall = hits / truth.sum() if truth.any() else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def train_classifier(
    vectors: NDArray[np.float32],
    examples: Sequence[Example],
    keys: Sequence[str],
    seed: int = 13,
) -> Classifier:
    """Thresholds from a validation fifth of the training contracts, then weights from all."""
    labels = label_matrix(examples, keys)
    inner_train, validation = split_by_group(examples, 0.2, seed)
    weights, bias = fit(vectors[inner_train], labels[inner_train])
    probabilities = 1.0 / (1.0 + np.exp(-(vectors[validation] @ weights + bias)))
    thresholds = best_thresholds(probabilities.astype(np.float32), labels[validation])
    weights, bias = fit(vectors, labels)
    return Classifier(tuple(keys), weights, bias, thresholds)


def scores(
    classifier: Classifier, vectors: NDArray[np.float32], examples: Sequence[Example]
) -> dict[str, object]:
    """Per-type precision / recall / F1 on held-out examples, with micro and macro averages
    (macro over the types the held-out examples have)."""
    labels = label_matrix(examples, classifier.keys) > 0
    predicted = classifier.probabilities(vectors) >= classifier.thresholds
    per_type: dict[str, dict[str, float]] = {}
    for column, key in enumerate(classifier.keys):
        precision, recall, f1 = _f1(predicted[:, column], labels[:, column])
        per_type[key] = {
            "precision": round(precision, 3),
            "recall": round(recall, 3),
            "f1": round(f1, 3),
            "support": int(labels[:, column].sum()),
        }
    micro = _f1(predicted.ravel(), labels.ravel())
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
