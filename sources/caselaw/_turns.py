"""Turns at a case-law site, shared by every process of the machine: the requests waiting
for one host are ticket files, and the next one served is the oldest of the firm that has used
the site least lately. A firm that floods the site waits behind one that asks now and then,
instead of taking every other turn (what plain round robin gives it); firms that ask alike
still alternate."""

from __future__ import annotations

import fcntl
import json
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from django.conf import settings

REST_MARK = "~rest"  # a ticket's name ends so while its request sleeps before a retry
# How far back a firm's use of a site counts when choosing whose turn it is.
USAGE_WINDOW_S = 60.0


class QueueFull(Exception):
    """The firm already has as many requests waiting as it may."""

    def __init__(self, waiting: int) -> None:
        super().__init__(waiting)
        self.waiting = waiting


def lock_path(host: str) -> Path:
    folder = Path(settings.LEXROOM_DATA_DIR) / "caselaw"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"spacing-{re.sub(r'[^A-Za-z0-9.-]', '_', host)}.lock"


def _in_window(times: list[float]) -> list[float]:
    """The times of ``times`` within the last ``USAGE_WINDOW_S`` (anything else dropped)."""
    cutoff = time.time() - USAGE_WINDOW_S
    return [t for t in times if isinstance(t, int | float) and t > cutoff]


def _recent(times: list[float]) -> tuple[int, float]:
    """(requests in the window, the last one's time): what orders the firms' turns."""
    recent = _in_window(times)
    return len(recent), max(recent, default=0.0)


class Turns:
    """The requests waiting for one host, in turns by firm, shared by every process.

    Each waiting request is a ticket file in ``caselaw/queue-HOST/`` named by its firm and
    arrival, locked (``flock``) by its owner for as long as it waits: a ticket whose lock can
    be taken belongs to a process that died, and is dropped. The next request served is the
    oldest ticket of the firm that used the site least in the last ``USAGE_WINDOW_S`` (then the
    one served longest ago), so a firm's flood never holds up a firm asking now and then. The
    queue's bookkeeping happens under a short lock of its own (``queue-HOST.lock``).
    """

    def __init__(self, host: str) -> None:
        self.host = host
        safe = re.sub(r"[^A-Za-z0-9.-]", "_", host)
        self.folder = lock_path(host).parent / f"queue-{safe}"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.guard_path = self.folder.parent / f"queue-{safe}.lock"
        self.usage_path = self.folder.parent / f"queue-{safe}.usage"
        self.ticket: Path | None = None
        self.handle: IO[str] | None = None

    @contextmanager
    def _guard(self) -> Iterator[None]:
        with self.guard_path.open("a") as guard:
            fcntl.flock(guard, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(guard, fcntl.LOCK_UN)

    def _live(self) -> list[str]:
        """The tickets of live waiters (ours included), oldest first; dead ones removed."""
        names = sorted(
            (p.name for p in self.folder.iterdir()), key=lambda name: name.split("~")[1:2]
        )
        live = []
        for name in names:
            if name.startswith(".") or "~" not in name:
                continue
            if self.ticket is not None and name == self.ticket.name:
                live.append(name)
                continue
            try:
                with (self.folder / name).open("a") as other:
                    fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    (self.folder / name).unlink()  # its owner is gone
            except BlockingIOError:
                live.append(name)  # locked: its owner waits
            except FileNotFoundError:
                pass
        return live

    def join(self, firm: str, *, resting: bool = False) -> None:
        """Take a ticket; :class:`CaseLawError` (busy) when the firm's queue is full.
        ``resting``: a retry's backoff, counted in the firm's queue but taking no turn."""
        with self._guard():
            live = self._live()
            waiting = sum(1 for name in live if name.split("~")[0] == firm)
            if waiting >= settings.LEXROOM_CASELAW_QUEUE_PER_FIRM:
                raise QueueFull(len(live))
            # Locked under a hidden name, then renamed: never seen unlocked (as dead).
            name = f"{firm}~{time.time_ns():020d}~{os.getpid()}-{threading.get_ident()}"
            name += REST_MARK if resting else ""
            hidden = self.folder / f".{name}"
            self.handle = hidden.open("a")
            fcntl.flock(self.handle, fcntl.LOCK_EX)
            self.ticket = self.folder / name
            hidden.rename(self.ticket)

    def is_next(self) -> bool:
        """Is our ticket the one to serve now? (The caller then tries the host's lock.)"""
        with self._guard():
            live = [name for name in self._live() if not name.endswith(REST_MARK)]
            usage = self._usage()
        firms = {name.split("~")[0] for name in live}
        if not firms or self.ticket is None:
            return False
        # The firm that used the site least in the window, then the one served longest ago,
        # then by name: a light user goes before a flood, firms asking alike alternate.
        turn = min(firms, key=lambda firm: (*_recent(usage.get(firm, [])), firm))
        head = next(name for name in live if name.split("~")[0] == turn)
        return head == self.ticket.name

    def served(self) -> None:
        """Our request goes now: leave the queue, counted in our firm's recent use."""
        with self._guard():
            if self.ticket is not None:
                usage = self._usage()
                firm = self.ticket.name.split("~")[0]
                usage[firm] = [*usage.get(firm, []), time.time()]
                kept = {f: _in_window(ts) for f, ts in usage.items()}
                self.usage_path.write_text(json.dumps({f: ts for f, ts in kept.items() if ts}))
            self.leave()

    def waiting(self) -> int:
        return sum(1 for name in self.folder.iterdir() if not name.name.startswith("."))

    def _usage(self) -> dict[str, list[float]]:
        """Each firm's requests served in the window (times), as the last ones wrote them."""
        try:
            usage = json.loads(self.usage_path.read_text())
        except (OSError, ValueError):
            return {}
        return usage if isinstance(usage, dict) else {}

    @contextmanager
    def resting(self, firm: str) -> Iterator[None]:
        """Held through a retry's backoff: the request still counts in the firm's queue."""
        self.join(firm, resting=True)
        try:
            yield
        finally:
            self.leave()

    def leave(self) -> None:
        if self.ticket is not None:
            self.ticket.unlink(missing_ok=True)
            self.ticket = None
        if self.handle is not None:
            self.handle.close()
            self.handle = None
