"""Training a classifier end to end: examples → embeddings → fit → held-out scores → stored."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from numpy.typing import NDArray

from core.embeddings import get_encoder
from documents.clause_types._classifier import Classifier
from documents.clause_types._fit import (
    Example,
    Presence,
    scores,
    split_by_group,
    train_classifier,
)
from documents.clause_types._presence import (
    ContractSample,
    contract_scores,
    presence_report,
    presence_thresholds,
)
from documents.clause_types._shipped import half_precision, shipped_write
from documents.clause_types._sources import (
    TrainingDataError,
    acord_train_examples,
    cuad_examples,
    definition_examples,
    labels_examples,
)
from documents.clause_types._store import clause_classifier_save
from documents.clause_types._taxonomy import KEYS

HELD_OUT = 0.2  # contracts kept out of training, to report the scores on
MIN_EXAMPLES = 20


def training_examples(*, data_dir: Path, labels: Path | None) -> list[Example]:
    """A firm's labels (with our definitions), or CUAD + our definitions + ACORD train queries."""
    if labels is not None:
        return labels_examples(labels) + definition_examples()
    return (
        cuad_examples(data_dir / "cuad")
        + definition_examples()
        + acord_train_examples(data_dir / "acord")
    )


def training_contracts(*, data_dir: Path, labels: Path | None) -> Path | None:
    """Where the training contracts' whole texts are (CUAD's), None for a firm's labels."""
    return None if labels is not None else data_dir / "cuad" / "full_contract_txt"


def _embeddings(texts: Sequence[str], progress: Callable[[str], None]) -> NDArray[np.float32]:
    """The texts' embeddings with the active model. Kept per text under the data directory:
    training again (other labels, another weight) only encodes the texts not seen before."""
    encoder = get_encoder()
    model_key = hashlib.sha256(encoder.name.encode()).hexdigest()[:12]
    cache = Path(settings.LEXROOM_DATA_DIR) / "clause_types" / f"embeddings-{model_key}.npz"
    known: dict[str, NDArray[np.float32]] = {}
    if cache.is_file():
        with np.load(cache) as stored:
            known = dict(zip(stored["keys"].tolist(), stored["vectors"], strict=True))
    keys = [hashlib.sha256(text.encode()).hexdigest()[:24] for text in texts]
    missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in known}.items())
    if missing:
        progress(f"encoding {len(missing)} texts with {encoder.name}")
        vectors = encoder.encode([text for _, text in missing])
        known.update(
            zip([k for k, _ in missing], np.asarray(vectors, dtype=np.float32), strict=True)
        )
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, keys=np.asarray(list(known)), vectors=np.stack(list(known.values())))
    return np.stack([known[k] for k in keys]).astype(np.float32)


def _presence_reader(
    examples: Sequence[Example],
    contracts_dir: Path,
    progress: Callable[[str], None],
    report: dict[str, Any],
) -> Presence:
    """How the presence thresholds are read on the validation contracts whose whole text
    is in ``contracts_dir`` (``<group stem>.txt``); their scores go into ``report``."""
    labels: dict[str, set[str]] = defaultdict(set)
    for example in examples:
        labels[example.group] |= example.labels

    def read(inner: Classifier, groups: set[str]) -> NDArray[np.float32]:
        paths = {group: contracts_dir / f"{Path(group).stem}.txt" for group in sorted(groups)}
        samples = [
            ContractSample(path, frozenset(labels[group]))
            for group, path in paths.items()
            if path.is_file()
        ]
        progress(f"reading {len(samples)} validation contracts whole")
        scores = contract_scores(inner, samples, lambda texts: _embeddings(texts, _quiet))
        truth = np.asarray([[key in s.labels for key in inner.keys] for s in samples], dtype=bool)
        chosen = presence_thresholds(scores, truth, inner.thresholds)
        report.update(presence_report(inner.keys, scores, truth, inner.thresholds, chosen))
        return chosen

    return read


def _quiet(_: str) -> None:
    return None


def _report(
    classifier: Classifier,
    vectors: NDArray[np.float32],
    examples: Sequence[Example],
    split: tuple[list[int], list[int]],
) -> dict[str, Any]:
    """The training report: the split, the features, the held-out scores, the thresholds."""
    train, held_out = split
    return {
        "embedding_model": get_encoder().name,
        "examples": {"train": len(train), "held_out": len(held_out)},
        "held_out_split": f"by contract, {int(HELD_OUT * 100)}% of contracts",
        "features": f"embedding + words and word pairs hashed into 2**{classifier.lexical_bits}"
        if classifier.lexical_bits
        else "embedding",
        **scores(classifier, vectors[held_out], [examples[i] for i in held_out]),
        "thresholds": {
            key: round(float(t), 2)
            for key, t in zip(classifier.keys, classifier.thresholds, strict=True)
        },
        "version": classifier.version,
    }


def clause_classifier_train(
    *,
    examples: Sequence[Example],
    firm_id: int | None,
    save: bool = True,
    progress: Callable[[str], None] = lambda _: None,
    ship: dict[str, Any] | None = None,
    contracts_dir: Path | None = None,
) -> tuple[Classifier, dict[str, Any]]:
    """Train on the examples' training contracts, score on the held-out ones, store it (with
    ``ship``, how it was made: into the package instead, in half precision, for the lab).
    With ``contracts_dir`` (CUAD's texts), the presence thresholds are read on whole
    validation contracts (:mod:`._presence`).

    Raises :class:`TrainingDataError` before anything is stored when the examples cannot
    train a classifier: the previous one is then kept as it was.
    """
    labelled = [e for e in examples if e.labels]
    if len(examples) < MIN_EXAMPLES or not labelled:
        raise TrainingDataError(
            f"{len(examples)} examples, {len(labelled)} with a type: at least {MIN_EXAMPLES} "
            "with some typed are needed."
        )
    vectors = _embeddings([e.text for e in examples], progress)
    train, held_out = split_by_group(examples, HELD_OUT, seed=13)
    progress(f"training on {len(train)} examples, scoring on {len(held_out)} held out")
    presence: dict[str, Any] = {}
    reader = (
        None
        if contracts_dir is None
        else _presence_reader(examples, contracts_dir, progress, presence)
    )
    classifier = train_classifier(
        vectors[train], [examples[i] for i in train], KEYS, presence=reader
    )
    if ship:
        classifier = half_precision(classifier)  # scored as the package will hold it
    report = _report(classifier, vectors, examples, (train, held_out))
    if presence:
        report["presence"] = presence
    if ship:
        shipped_write(classifier, get_encoder().name, {**report, **ship})
    elif save:
        clause_classifier_save(
            classifier=classifier,
            embedding_model=get_encoder().name,
            firm_id=firm_id,
            report=report,
        )
    return classifier, report
