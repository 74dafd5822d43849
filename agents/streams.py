"""How many answer streams (server-sent events) a user and a firm may follow at once.

A stream lasts as long as the turn it follows, minutes at most. Each open stream holds one
slot of its user and one of its firm: a slot is an exclusive ``flock`` on one of ``cap``
files under ``LEXROOM_DATA_DIR/streams/DATABASE/``. Every web process of the machine sees the same
files, so the caps hold across workers, and the kernel drops a process's locks when it dies
(killed, crashed): a slot can never leak, and nothing touches the database. A database row or
a cache counter would need a connection per open and an expiry for the slots of a dead
process; an advisory lock would hold a connection for the stream's life, what the caps are
there to avoid.
"""

from __future__ import annotations

import contextlib
import fcntl
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from django.conf import settings
from django.db import connections
from django.utils.translation import gettext

# What a refused client is told to wait: a stream ends when its answer does (seconds for a
# replay, a minute or two for a live turn).
RETRY_AFTER_S = 5


class TooManyStreams(Exception):
    """The user's or the firm's streams are all in use."""

    def __init__(self, message: str, *, retry_after: int = RETRY_AFTER_S) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


@dataclass
class StreamSlots:
    """The slots one stream holds; :meth:`release` (or garbage collection, which closes the
    files) gives them back."""

    handles: list[IO[str]] = field(default_factory=list)

    def release(self) -> None:
        while self.handles:
            with contextlib.suppress(OSError):
                self.handles.pop().close()  # closing the file drops its lock


def _folder() -> Path:
    # One folder per database: installs (and test runs) sharing a data folder never share
    # slots, whose users and firms are numbered in their own database.
    database = re.sub(r"[^A-Za-z0-9_.-]", "_", str(connections["default"].settings_dict["NAME"]))
    folder = Path(settings.LEXROOM_DATA_DIR) / "streams" / database
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _take(folder: Path, name: str, cap: int) -> IO[str] | None:
    """A free slot among ``name.0`` … ``name.{cap-1}``, locked; None when all are held."""
    for index in range(cap):
        handle = (folder / f"{name}.{index}").open("a")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            continue
        return handle
    return None


def stream_slots_take(*, user_id: int, firm_id: int | None) -> StreamSlots:
    """One slot of the user's (``LEXROOM_STREAMS_PER_USER``) and one of the firm's
    (``LEXROOM_STREAMS_PER_FIRM``). Raises :class:`TooManyStreams` when either is full."""
    folder = _folder()
    slots = StreamSlots()
    per_user = int(settings.LEXROOM_STREAMS_PER_USER)
    per_firm = int(settings.LEXROOM_STREAMS_PER_FIRM)
    mine = _take(folder, f"user-{user_id}", per_user)
    if mine is None:
        message = gettext(
            "You are following %(limit)d answers already: close one (another tab) or try "
            "again in a few seconds."
        )
        raise TooManyStreams(message % {"limit": per_user})
    slots.handles.append(mine)
    firm = _take(folder, f"firm-{firm_id or 0}", per_firm)
    if firm is None:
        slots.release()
        message = gettext(
            "Your firm is following %(limit)d answers at once, its limit: try again in a few "
            "seconds."
        )
        raise TooManyStreams(message % {"limit": per_firm})
    slots.handles.append(firm)
    return slots
