"""Per-workspace advisory locks: one step at a time per workspace, across every worker.

``pg_advisory_xact_lock`` is held until the transaction ends (commit or rollback), so a
crashed worker never leaves one behind. The two-key form keeps each purpose apart: in
``pg_locks`` it shows as ``classid`` = the namespace, ``objid`` = the workspace id.
"""

from __future__ import annotations

from enum import IntEnum

from django.db import connection

_INT4_KEYS = 2**31


class LockNamespace(IntEnum):
    """One value per serialised step; listed here so two purposes never share one."""

    WORKSPACE_ANALYSIS = 7301
    TEXT_STATS = 7302


def _keys(namespace: LockNamespace, workspace_id: int) -> list[int]:
    # Workspace ids past 2**31 wrap: two workspaces sharing a key only wait for each other.
    return [int(namespace), int(workspace_id) % _INT4_KEYS]


def _require_transaction() -> None:
    if not connection.in_atomic_block:
        # In autocommit the lock would be released as soon as it is taken.
        raise RuntimeError("A transaction-level advisory lock needs a transaction.")


def workspace_xact_lock(*, namespace: LockNamespace, workspace_id: int) -> None:
    """Wait for, then hold until the end of the transaction, the workspace's lock."""
    _require_transaction()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", _keys(namespace, workspace_id))


def workspace_xact_try_lock(*, namespace: LockNamespace, workspace_id: int) -> bool:
    """Take the workspace's lock if it is free (held until the end of the transaction)."""
    _require_transaction()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", _keys(namespace, workspace_id))
        row = cursor.fetchone()
    return bool(row and row[0])
