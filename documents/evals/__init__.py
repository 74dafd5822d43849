"""Metadata extraction evaluations (``manage.py eval_metadata``): CUAD's labels against our
parties and governing law. Runtime code never imports this package."""

from __future__ import annotations

from documents.evals._cuad import (
    CuadMissing,
    default_cuad_dir,
    evaluate_cuad,
    file_key,
    gold_parties,
    same_party,
)

__all__ = [
    "CuadMissing",
    "default_cuad_dir",
    "evaluate_cuad",
    "file_key",
    "gold_parties",
    "same_party",
]
