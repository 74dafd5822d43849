"""Search reads on a hot-standby replica, writes and everything else on the primary.

With ``DATABASE_REPLICA_URL`` set, :func:`replica_reads` runs a search on the ``replica``
connection: it opens a read-only transaction there, writes the caller's tenant scope into it
(row-level security reads transaction-local settings, which a second connection does not
share), and routes the ORM's reads to it (:class:`SearchReplicaRouter`) and the ranking's raw
SQL (:func:`read_connection`). Outside :func:`replica_reads` the router sends nothing to the
replica, so no read can reach it without the scope.

A replica that cannot be reached, or whose replay is more than
``LEXROOM_REPLICA_MAX_LAG_SECONDS`` behind, is skipped: the search runs on the primary and
the log says why. A replica shows the primary's state up to its replay lag, so a document
stored a moment ago may be missing from a search for that long.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper

from workspaces.tenancy import scope_mirror

REPLICA = "replica"
logger = logging.getLogger(__name__)
_reading: ContextVar[str | None] = ContextVar("lexroom_replica_reads", default=None)


def replica_configured() -> bool:
    return REPLICA in settings.DATABASES


def read_connection() -> BaseDatabaseWrapper:
    """The connection this context's search reads go to (the primary's outside a replica
    read)."""
    return connections[_reading.get() or "default"]


def _lag_seconds(alias: str) -> float | None:
    """Seconds of WAL the replica has received but not replayed yet, as its replay clock
    sees it (None: up to date, or not a standby)."""
    with connections[alias].cursor() as cursor:
        cursor.execute(
            "SELECT CASE WHEN pg_is_in_recovery() AND pg_last_wal_receive_lsn() "
            "<> pg_last_wal_replay_lsn() THEN extract(epoch FROM "
            "now() - pg_last_xact_replay_timestamp()) END"
        )
        row = cursor.fetchone()
    return None if row is None or row[0] is None else float(row[0])


def _usable() -> bool:
    """Whether the replica answers and is not too far behind; after a failure it is left
    alone for ``LEXROOM_REPLICA_RETRY_SECONDS`` (no connect timeout paid by every search)."""
    global _down_until
    if time.monotonic() < _down_until:
        return False
    try:
        lag = _lag_seconds(REPLICA)
    except DatabaseError as exc:
        logger.warning("Search on the primary: the replica cannot be used (%s).", exc)
        _down_until = time.monotonic() + settings.LEXROOM_REPLICA_RETRY_SECONDS
        connections[REPLICA].close()
        return False
    if lag is not None and lag > settings.LEXROOM_REPLICA_MAX_LAG_SECONDS:
        logger.warning("Search on the primary: the replica is %.1f s behind.", lag)
        return False
    return True


_down_until = 0.0


@contextmanager
def replica_reads() -> Iterator[str]:
    """Run the block's search reads on the replica, in the caller's scope; yields the alias
    used ("default" when there is no replica, or it is unreachable or too far behind)."""
    if _reading.get() is not None:
        yield REPLICA
        return
    if not replica_configured() or not _usable():
        yield "default"
        return
    with transaction.atomic(using=REPLICA):
        scope_mirror(REPLICA)
        token = _reading.set(REPLICA)
        try:
            yield REPLICA
        finally:
            _reading.reset(token)


class SearchReplicaRouter:
    """Reads inside :func:`replica_reads` go to the replica; nothing else does, and nothing is
    ever written or migrated there."""

    def db_for_read(self, model: type[Any], **hints: Any) -> str | None:
        return _reading.get()

    def db_for_write(self, model: type[Any], **hints: Any) -> str | None:
        return "default" if _reading.get() is not None else None

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool | None:
        return False if db == REPLICA else None
