"""Search quality evaluations: suites run by ``manage.py eval_search`` and the CI tests."""

from __future__ import annotations

from lab.search.evals._brenalis import COMMERCIAL_LEASES, NO_END_DATE, SIGNED_IN_2025
from lab.search.evals._index import (
    EVAL_USER,
    IndexedCorpus,
    corpus_index,
    entries_store,
    fingerprint,
    log,
)
from lab.search.evals.suites import SUITES, DatasetMissing, EvalOptions, default_data_dir, run_suite

__all__ = [
    "COMMERCIAL_LEASES",
    "EVAL_USER",
    "NO_END_DATE",
    "SIGNED_IN_2025",
    "SUITES",
    "DatasetMissing",
    "EvalOptions",
    "IndexedCorpus",
    "corpus_index",
    "default_data_dir",
    "entries_store",
    "fingerprint",
    "log",
    "run_suite",
]
