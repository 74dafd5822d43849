"""Limits measured while a file is read: pages, characters and seconds.

A parser reports what it has just read to its `Meter`, which stops the reading as soon as a
limit is passed, so a hostile file costs at most the limit, never the whole file. The
seconds are checked between pages (or blocks, or slices of HTML): one page that never ends
is stopped by the process that runs the parser being killed (``_isolated``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from django.utils.translation import gettext

from documents.parsing._formats import ParseError

Limit = Literal["pages", "chars", "seconds", "memory"]


@dataclass(frozen=True)
class Limits:
    """What one file may cost to read; None is no limit."""

    max_pages: int | None = None
    max_chars: int | None = None
    seconds: float | None = None


class LimitReached(ParseError):
    """Reading stopped at a limit; ``count`` is how far it had gone (pages, characters,
    seconds or megabytes), so the caller can name the limit and its setting."""

    def __init__(self, *, filename: str, limit: Limit, count: int) -> None:
        message = gettext("%(file)s: reading stopped at the %(limit)s limit (%(count)d)")
        super().__init__("too_large", message % {"file": filename, "limit": limit, "count": count})
        self.limit: Limit = limit
        self.count = count


class Meter:
    """Counts what a parser has read and raises `LimitReached` once past a limit."""

    def __init__(self, filename: str, limits: Limits | None = None) -> None:
        self.filename = filename
        self.limits = limits or Limits()
        self.pages = 0
        self.chars = 0
        self._started = time.monotonic()

    def declare_pages(self, count: int) -> None:
        """The file says it has ``count`` pages: refuse before reading any of them."""
        if self.limits.max_pages is not None and count > self.limits.max_pages:
            raise LimitReached(filename=self.filename, limit="pages", count=count)

    def progress(self, *, chars: int = 0, pages: int = 0) -> None:
        """Count what was just read; stop here if a limit is passed."""
        self.chars += chars
        self.pages += pages
        self.declare_pages(self.pages)
        if self.limits.max_chars is not None and self.chars > self.limits.max_chars:
            raise LimitReached(filename=self.filename, limit="chars", count=self.chars)
        elapsed = time.monotonic() - self._started
        if self.limits.seconds is not None and elapsed > self.limits.seconds:
            raise LimitReached(filename=self.filename, limit="seconds", count=int(elapsed))
