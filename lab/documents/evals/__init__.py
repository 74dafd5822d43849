"""Metadata extraction evaluations (``manage.py eval_metadata``): CUAD's labels, and the
Brenalis data room read back from PDFs; and segmentation (``manage.py eval_segmentation``):
the same contracts cut into articles. Runtime code never imports this package."""

from __future__ import annotations

from lab.documents.evals._brenalis_text import (
    BrenalisMissing,
    default_brenalis_file,
    evaluate_brenalis_text,
)
from lab.documents.evals._cuad import (
    CuadMissing,
    default_cuad_dir,
    evaluate_cuad,
    file_key,
    gold_parties,
    gold_parties_counted,
    same_party,
)
from lab.documents.evals._cuad_dates import (
    DatesTally,
    date_miss,
    expiration_golds,
    gold_date,
    score_expiration,
)
from lab.documents.evals._scoring import rate
from lab.documents.evals._segmentation import (
    evaluate_brenalis_segmentation,
    evaluate_cuad_segmentation,
)

__all__ = [
    "BrenalisMissing",
    "CuadMissing",
    "DatesTally",
    "date_miss",
    "default_brenalis_file",
    "default_cuad_dir",
    "evaluate_brenalis_segmentation",
    "evaluate_brenalis_text",
    "evaluate_cuad",
    "evaluate_cuad_segmentation",
    "expiration_golds",
    "file_key",
    "gold_date",
    "gold_parties",
    "gold_parties_counted",
    "rate",
    "same_party",
    "score_expiration",
]
