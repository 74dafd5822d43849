"""Metadata extraction evaluations (``manage.py eval_metadata``): CUAD's labels, and the
Brenalis data room read back from PDFs. Runtime code never imports this package."""

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
    same_party,
)

__all__ = [
    "BrenalisMissing",
    "CuadMissing",
    "default_brenalis_file",
    "default_cuad_dir",
    "evaluate_brenalis_text",
    "evaluate_cuad",
    "file_key",
    "gold_parties",
    "same_party",
]
