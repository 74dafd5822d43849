"""Clause types: the taxonomy, the classifier (embeddings and hashed words), where it is kept.

One ships per encoder a fresh install can select offline; ``train_clause_types`` trains the
install's or a firm's own (CUAD, our definitions, ACORD train queries, or a firm's labels);
the ingestion's ``clause_types`` workspace step tags chunks with it, reading long articles in
windows; search filters on the tags and uses the query's likely families as a prior.
"""

from __future__ import annotations

from documents.clause_types._classifier import (
    CUE_CONFIDENCE,
    OPENING_CHARS,
    Classifier,
    cue_text,
    family_of,
    family_prior,
)
from documents.clause_types._fit import split_by_group
from documents.clause_types._shipped import shipped_classifier, shipped_report
from documents.clause_types._sources import (
    TrainingDataError,
    cuad_examples,
    cuad_excerpts,
    type_references,
)
from documents.clause_types._store import classifier_for, clause_classifier_save
from documents.clause_types._taxonomy import (
    BY_KEY,
    CLAUSE_TYPES,
    CUES,
    FAMILIES,
    KEYS,
    ClauseType,
    clause_type_label,
    clause_type_tags,
    family_label,
    heading_names,
)
from documents.clause_types._training import (
    HELD_OUT,
    clause_classifier_train,
    training_contracts,
    training_examples,
)
from documents.clause_types._windows import WHOLE_UP_TO, article_probabilities, windows

__all__ = [
    "BY_KEY",
    "CLAUSE_TYPES",
    "CUES",
    "CUE_CONFIDENCE",
    "FAMILIES",
    "HELD_OUT",
    "KEYS",
    "OPENING_CHARS",
    "WHOLE_UP_TO",
    "Classifier",
    "ClauseType",
    "TrainingDataError",
    "article_probabilities",
    "classifier_for",
    "clause_classifier_save",
    "clause_classifier_train",
    "clause_type_label",
    "clause_type_tags",
    "cuad_examples",
    "cuad_excerpts",
    "cue_text",
    "family_label",
    "family_of",
    "family_prior",
    "heading_names",
    "shipped_classifier",
    "shipped_report",
    "split_by_group",
    "training_contracts",
    "training_examples",
    "type_references",
    "windows",
]
