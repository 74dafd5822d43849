"""Transaction-level advisory locks: one holder at a time per (namespace, key), across every
worker.

``pg_advisory_xact_lock`` is held until the transaction ends (commit or rollback), so a
crashed worker never leaves one behind. The two-key form keeps each purpose apart: in
``pg_locks`` it shows as ``classid`` = the namespace, ``objid`` = the key.
"""

from __future__ import annotations

from django.db import connection

_INT4_KEYS = 2**31


def _keys(namespace: int, key: int) -> list[int]:
    # Keys past 2**31 wrap: two objects sharing a key only wait for each other.
    return [int(namespace), int(key) % _INT4_KEYS]


def _require_transaction() -> None:
    if not connection.in_atomic_block:
        # In autocommit the lock would be released as soon as it is taken.
        raise RuntimeError("A transaction-level advisory lock needs a transaction.")


def xact_lock(*, namespace: int, key: int) -> None:
    """Wait for, then hold until the end of the transaction, the lock on ``key``."""
    _require_transaction()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", _keys(namespace, key))


def xact_try_lock(*, namespace: int, key: int) -> bool:
    """Take the lock on ``key`` if it is free (held until the end of the transaction)."""
    _require_transaction()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", _keys(namespace, key))
        row = cursor.fetchone()
    return bool(row and row[0])
