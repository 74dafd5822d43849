"""Where a call's time goes: the transport opens a :class:`CallTiming`, the registry adds the
handler's time to it, and the transport reports both (the MCP ``Server-Timing`` header).

A context variable carries it, holding a mutable object: the worker thread that runs the
tool gets a copy of the context, and so the same object, whose total the transport reads back.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field


@dataclass
class CallTiming:
    started: float = field(default_factory=time.perf_counter)
    tool_ms: float = 0.0

    def app_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000

    def header(self) -> bytes:
        """The ``Server-Timing`` value: app (whole request so far) and tool (handlers)."""
        return f"app;dur={self.app_ms():.2f}, tool;dur={self.tool_ms:.2f}".encode()


_timing: ContextVar[CallTiming | None] = ContextVar("lexroom_call_timing", default=None)


@contextmanager
def call_timing() -> Iterator[CallTiming]:
    """Time the block's tool calls (see the module docstring)."""
    timing = CallTiming()
    reset = _timing.set(timing)
    try:
        yield timing
    finally:
        _timing.reset(reset)


@contextmanager
def timed_handler() -> Iterator[None]:
    """Add the block's duration to the open :class:`CallTiming`, if any."""
    timing = _timing.get()
    if timing is None:
        yield
        return
    started = time.perf_counter()
    try:
        yield
    finally:
        timing.tool_ms += (time.perf_counter() - started) * 1000
