"""Compliance evaluations (``manage.py eval_compliance``): the Brenalis data room, CUAD's
annotated clauses and the ANA-FR articles; the CUAD corpus is shared with ``bench_compliance``."""

from __future__ import annotations

from lab.compliance.evals._cuad_corpus import (
    MAPPED,
    CuadMissing,
    cuad_index,
    held_out_filenames,
    selected,
)

__all__ = ["MAPPED", "CuadMissing", "cuad_index", "held_out_filenames", "selected"]
