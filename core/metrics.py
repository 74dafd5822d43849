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
def timed(stage: str, *, cpu: bool = False) -> Iterator[None]:
    """Add the block's wall time to ``stage``; with ``cpu``, also this thread's CPU time to
    ``<stage>_cpu`` (for a block that runs in one thread from start to end)."""
    totals = _totals.get()
    if totals is None:
        yield
        return
    started = time.perf_counter()
    cpu_started = time.thread_time() if cpu else 0.0
    try:
        yield
    finally:
        totals[stage] += time.perf_counter() - started
        if cpu:
            totals[f"{stage}_cpu"] += time.thread_time() - cpu_started
