"""One way for a measurement command to report: progress on stderr, the result on stdout.

With ``--json`` stdout carries exactly one JSON object (what scripts and CI read); without
it, the command's own human lines. Progress lines always go to stderr, throttled, so neither
form is polluted by them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from typing import Any, ClassVar, Protocol

from django.core.management.base import BaseCommand, CommandError, CommandParser

Progress = Callable[[str, int, int], None]  # (stage, done, total)


class Reporter(Protocol):
    """What a measurement package needs from its command: notes and throttled progress.

    A :class:`MeasurementCommand` is one; the packages take this, not the command, so they
    can be run and tested without ``manage.py``.
    """

    def note(self, message: str) -> None: ...

    def progress(self, *, every_s: float = 10.0, started: float | None = None) -> Progress: ...


class MeasurementCommand(BaseCommand):
    """Base of ``bench_*`` / ``eval_*``: ``--json``, :meth:`note`, :meth:`progress`,
    :meth:`emit`. Subclasses call ``super().add_arguments(parser)``."""

    verbosity = 1
    # Exceptions of the measured package that mean "cannot run as asked" (a missing dataset,
    # a taken workspace): shown as one CommandError line, not a traceback.
    refusals: ClassVar[tuple[type[Exception], ...]] = ()

    def execute(self, *args: Any, **options: Any) -> str | None:
        self.verbosity = int(options.get("verbosity", 1))
        try:
            return super().execute(*args, **options)
        except self.refusals as exc:
            raise CommandError(str(exc)) from exc

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--json", action="store_true", help="Print only the result, as one JSON object."
        )

    def note(self, message: str) -> None:
        """A line for the operator (stderr), silenced by ``--verbosity 0``."""
        if self.verbosity >= 1:
            self.stderr.write(message)

    def progress(self, *, every_s: float = 10.0, started: float | None = None) -> Progress:
        """A ``(stage, done, total)`` callback that notes at most every ``every_s`` seconds
        per stage, and always at a stage's end; with ``started``, also the rate per second."""
        last: dict[str, float] = {}

        def report(stage: str, done: int, total: int) -> None:
            now = time.monotonic()
            if done < total and now - last.get(stage, 0.0) < every_s:
                return
            last[stage] = now
            rate = ""
            if started is not None:
                elapsed = max(time.perf_counter() - started, 1e-9)
                rate = f" ({done / elapsed:.0f}/s)"
            self.note(f"  {stage}: {done}/{total}{rate}")

        return report

    def emit(
        self,
        result: dict[str, Any],
        *,
        as_json: bool,
        lines: Callable[[dict[str, Any]], Iterable[str]] | None = None,
    ) -> None:
        """The result: one JSON object, or the command's human lines (indented JSON if none)."""
        if as_json or lines is None:
            self.stdout.write(json.dumps(result, ensure_ascii=False, indent=None if as_json else 2))
            return
        for line in lines(result):
            self.stdout.write(line)
