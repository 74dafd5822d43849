"""Per-workspace advisory locks: one step at a time per workspace, across every worker.

The lock itself is :mod:`core.locks` (held until the transaction ends); here, the purposes a
workspace is locked for, keyed by its id (``pg_locks``: ``classid`` = the purpose,
``objid`` = the workspace id).
"""

from __future__ import annotations

from enum import IntEnum

from core.locks import xact_lock, xact_try_lock


class LockNamespace(IntEnum):
    """One value per serialised step; listed here so two purposes never share one."""

    WORKSPACE_ANALYSIS = 7301
    TEXT_STATS = 7302


def workspace_xact_lock(*, namespace: LockNamespace, workspace_id: int) -> None:
    """Wait for, then hold until the end of the transaction, the workspace's lock."""
    xact_lock(namespace=namespace, key=workspace_id)


def workspace_xact_try_lock(*, namespace: LockNamespace, workspace_id: int) -> bool:
    """Take the workspace's lock if it is free (held until the end of the transaction)."""
    return xact_try_lock(namespace=namespace, key=workspace_id)
