"""Search quality evaluations: suites run by ``manage.py eval_search`` and the CI tests."""

from __future__ import annotations

from lab.search.evals.suites import SUITES, DatasetMissing, EvalOptions, default_data_dir, run_suite

__all__ = ["SUITES", "DatasetMissing", "EvalOptions", "default_data_dir", "run_suite"]
