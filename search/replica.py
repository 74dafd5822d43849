"""Search reads on a hot-standby replica, writes and everything else on the primary.

With ``DATABASE_REPLICA_URL`` set, :func:`replica_reads` runs a search on the ``replica``
connection: it opens a read-only transaction there, writes the caller's tenant scope into it
(row-level security reads transaction-local settings, which a second connection does not
share), and routes the ORM's reads to it (:class:`SearchReplicaRouter`) and the ranking's raw
SQL (:func:`read_connection`). Outside :func:`replica_reads` every read goes to the primary,
so no read can reach the replica without the scope.

The replica is used only when it is a standby (in recovery), its role is bound by row-level
security (neither superuser nor BYPASSRLS), and it has replayed everything the primary had
flushed when the search began — so a search sees every write committed before it, as on the
primary. It may wait ``LEXROOM_REPLICA_WAIT_MS`` for that; otherwise, or when it does not
answer, the search reads the primary and the log says why. A search whose replica query
fails midway (a dropped connection, a query cancelled by a recovery conflict) is run again
on the primary. After either failure the replica is left alone for
``LEXROOM_REPLICA_RETRY_SECONDS``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper

from workspaces.tenancy import scope_mirror

REPLICA = "replica"
PRIMARY = "default"
logger = logging.getLogger(__name__)
_reading: ContextVar[str | None] = ContextVar("lexroom_replica_reads", default=None)
_down_until = 0.0


class ReplicaFailed(Exception):
    """A query on the replica failed during a search: run it again on the primary."""


def replica_configured() -> bool:
    return REPLICA in settings.DATABASES


def read_connection() -> BaseDatabaseWrapper:
    """The connection this context's search reads go to (the primary's outside a replica
    read)."""
    return connections[_reading.get() or PRIMARY]


def _mark_down(exc: Exception) -> None:
    global _down_until
    logger.warning("Search on the primary: the replica cannot be used (%s).", exc)
    _down_until = time.monotonic() + settings.LEXROOM_REPLICA_RETRY_SECONDS
    connections[REPLICA].close()


_STATE = (
    "SELECT pg_is_in_recovery(), r.rolsuper OR r.rolbypassrls, "
    "coalesce(pg_last_wal_replay_lsn() >= %s::pg_lsn, false) "
    "FROM pg_roles r WHERE r.rolname = current_user"
)


def _usable() -> bool:
    """Whether the replica may answer this search (see the module docstring)."""
    if time.monotonic() < _down_until:
        return False
    with connections[PRIMARY].cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_flush_lsn()::text")
        target = cursor.fetchone()[0]
    deadline = time.monotonic() + settings.LEXROOM_REPLICA_WAIT_MS / 1000
    try:
        with connections[REPLICA].cursor() as cursor:
            while True:
                cursor.execute(_STATE, [target])
                standby, unbound, caught_up = cursor.fetchone()
                if not standby or unbound or caught_up or time.monotonic() >= deadline:
                    break
                time.sleep(0.005)
    except DatabaseError as exc:
        _mark_down(exc)
        return False
    if not standby or unbound:
        why = "is not a standby" if not standby else "connects as a role RLS does not bind"
        logger.error("Search on the primary: the replica %s (DATABASE_REPLICA_URL).", why)
        return False
    if not caught_up:
        logger.info("Search on the primary: the replica has not replayed up to %s.", target)
    return bool(caught_up)


@contextmanager
def replica_reads() -> Iterator[str]:
    """Run the block's search reads on the replica, in the caller's scope; yields the alias
    used ("default" when there is no usable replica). Raises :class:`ReplicaFailed` when a
    replica query failed inside the block: the caller runs it again on the primary."""
    if _reading.get() is not None:
        yield REPLICA
        return
    if not replica_configured() or not _usable():
        yield PRIMARY
        return
    failed: list[DatabaseError] = []
    try:
        with (
            connections[REPLICA].execute_wrapper(_watch(failed)),
            transaction.atomic(using=REPLICA),
        ):
            with connections[REPLICA].cursor() as cursor:
                cursor.execute("SET TRANSACTION READ ONLY")
            scope_mirror(REPLICA)
            token = _reading.set(REPLICA)
            try:
                yield REPLICA
            finally:
                _reading.reset(token)
    except DatabaseError as exc:
        if not failed:
            raise  # the primary's error, or the caller's
        # A dropped connection, a query cancelled by a recovery conflict: either way the
        # primary answers for a while.
        _mark_down(exc)
        raise ReplicaFailed(str(exc)) from exc


def _watch(failed: list[DatabaseError]) -> Callable[..., Any]:
    """An execute wrapper noting the replica's own query errors."""

    def watch(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        try:
            return execute(sql, params, many, context)
        except DatabaseError as exc:
            failed.append(exc)
            raise

    return watch


class SearchReplicaRouter:
    """Reads inside :func:`replica_reads` go to the replica; every other read, every write
    and every migration to the primary (also for objects loaded from the replica)."""

    def db_for_read(self, model: type[Any], **hints: Any) -> str:
        return _reading.get() or PRIMARY

    def db_for_write(self, model: type[Any], **hints: Any) -> str:
        return PRIMARY

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        return True  # one database, two copies of it

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        return db == PRIMARY
