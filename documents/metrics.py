"""Per-stage timings of the ingestion pipeline, collected only when someone is measuring.

``with stage_timings() as totals:`` (the benchmark) turns collection on for the block;
services wrap their steps in ``with timed("parse"):``, which costs nothing otherwise.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_totals: ContextVar[dict[str, float] | None] = ContextVar("lexroom_stage_totals", default=None)


@contextmanager
def stage_timings() -> Iterator[dict[str, float]]:
    totals: dict[str, float] = defaultdict(float)
    token = _totals.set(totals)
    try:
        yield totals
    finally:
        _totals.reset(token)


@contextmanager
def timed(stage: str) -> Iterator[None]:
    totals = _totals.get()
    if totals is None:
        yield
        return
    started = time.perf_counter()
    try:
        yield
    finally:
        totals[stage] += time.perf_counter() - started
