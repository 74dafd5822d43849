"""run_setup: what `make run` does before it serves — migrate, the demo firm and data room, one
small French code — each step named, timed, and a line at least every few seconds while it
runs; the embedding of the code is queued for the worker (the login does not wait for it)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import translation
from django.utils.translation import gettext as _

from sources.selectors import codes_all
from sources.tasks import code_embedding_queue

# A step still running says so this often.
HEARTBEAT_S = 5.0


class Writer(Protocol):
    def write(self, text: str, /) -> object: ...

    def flush(self) -> object: ...


@contextmanager
def heartbeat(out: Writer, name: str, every: float | None = None) -> Iterator[None]:
    """While the block runs, write "… name: N s" every ``every`` seconds (``HEARTBEAT_S``),
    from a thread that touches no database, so a long step is never silent."""
    started = time.monotonic()
    stop = threading.Event()
    language = translation.get_language()  # the thread speaks the command's language

    def beat() -> None:
        with translation.override(language):
            while not stop.wait(HEARTBEAT_S if every is None else every):
                seconds = time.monotonic() - started
                out.write(_("… %(step)s: %(s)d s") % {"step": name, "s": seconds} + "\n")
                out.flush()

    thread = threading.Thread(target=beat, name=f"heartbeat-{name}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


class Command(BaseCommand):
    help = _(
        "Set up for `make run`: migrate, the demo firm and data room, one small French code "
        "(with npm and the network); the code's embedding is queued for the worker."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--no-code", action="store_true", help=_("Fetch no French code (no npm, offline).")
        )

    def handle(self, *args: Any, **options: Any) -> None:
        steps: list[tuple[str, Callable[[], None]]] = [
            ("migrate", self._migrate),
            ("demo", self._demo),
        ]
        if not options["no_code"]:
            steps.append(("code", self._code))
        steps.append(("embedding", self._queue_embedding))
        timings: list[tuple[str, float]] = []
        for name, run in steps:
            self.stdout.write(self.style.MIGRATE_HEADING(_("[%(step)s]") % {"step": name}))
            started = time.monotonic()
            with heartbeat(self.stdout, name):
                run()
            seconds = time.monotonic() - started
            timings.append((name, seconds))
            self.stdout.write(_("%(step)s: done in %(s).1f s") % {"step": name, "s": seconds})
        total = sum(seconds for _name, seconds in timings)
        parts = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in timings)
        self.stdout.write(_("Set up in %(s).1f s (%(parts)s).") % {"s": total, "parts": parts})

    def _migrate(self) -> None:
        call_command("migrate", interactive=False, verbosity=0, stdout=self.stdout)

    def _demo(self) -> None:
        call_command("demo_setup", stdout=self.stdout, stderr=self.stderr)

    def _code(self) -> None:
        try:
            call_command(
                "fetch_legal_codes",
                if_missing=True,
                no_embed=True,
                stdout=self.stdout,
                stderr=self.stderr,
            )
        except CommandError as exc:
            self.stderr.write(str(exc))
            self.stdout.write(
                _("No French code fetched; import some later (README, French codes).")
            )

    def _queue_embedding(self) -> None:
        """Queue every code some of whose versions lack a vector (a row left "running" by a
        killed worker included: it resumes where it stopped)."""
        waiting = 0
        for code in codes_all():
            # Forced: no worker runs yet, so a "running" row is a killed worker's; an
            # embedded code only has its row recounted.
            state = code_embedding_queue(code=code, force=True)
            waiting += state.total - state.done
        if waiting:
            self.stdout.write(
                _(
                    "The worker embeds %(n)d article versions for the meaning search (the "
                    "words and numbers are searched meanwhile): progress on /codes/ or with "
                    "`manage.py embed_legal_codes --wait`."
                )
                % {"n": waiting}
            )
        else:
            self.stdout.write(_("Every imported code is embedded."))
