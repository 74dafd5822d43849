"""The firm's query adapter, applied to the query vector of the vector arm.

A firm that rated results gets a linear map ``W`` (``manage.py train_search_adapter``,
:mod:`search.learning`); once a firm admin approves it, the vector arm searches with
``W @ q`` (normalised) instead of ``q``. Chunk vectors are untouched, so nothing is
re-indexed, and an adapter applies only to the embedding model it was trained for.
``LEXROOM_SEARCH_ADAPTERS=0`` turns adapters off.

The matrix is cached per process, keyed by the adapter's id and training time; each search
reads that key (one indexed query), so an approval or a rollback is followed by every
process at once.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from django.conf import settings

from search.replica import read_connection

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Matrix = NDArray[np.float32]
else:
    Matrix = Any

MAX_CACHED = 16
_cache: dict[tuple[int, str], Matrix] = {}
_cache_lock = threading.Lock()
# The eval (and tests) rank with a given matrix, or none, whatever the database holds.
_UNSET: Any = object()
_override: ContextVar[Any] = ContextVar("lexroom_adapter_override", default=_UNSET)


@contextmanager
def adapter_override(matrix: Matrix | None) -> Iterator[None]:
    """Rank with ``matrix`` (None: without any adapter) inside the block."""
    token = _override.set(matrix)
    try:
        yield
    finally:
        _override.reset(token)


def _version(workspace_id: int, model: str) -> tuple[int, str, int] | None:
    """(adapter id, trained at, dimension) of the adapter in use for the workspace's firm
    and ``model``: the latest approved and not rolled back (a candidate is never used)."""
    with read_connection().cursor() as cursor:
        cursor.execute(
            "SELECT a.id, a.trained_at::text, a.dimension FROM search_searchadapter a "
            "JOIN workspaces_workspace w ON w.firm_id = a.firm_id "
            "WHERE w.id = %s AND a.embedding_model = %s "
            "AND a.approved_at IS NOT NULL AND a.rolled_back_at IS NULL "
            "ORDER BY a.approved_at DESC LIMIT 1",
            [workspace_id, model],
        )
        row = cursor.fetchone()
    return (int(row[0]), str(row[1]), int(row[2])) if row else None


def _load(adapter_id: int, dimension: int) -> Matrix:
    import numpy as np

    with read_connection().cursor() as cursor:
        cursor.execute("SELECT weights FROM search_searchadapter WHERE id = %s", [adapter_id])
        row = cursor.fetchone()
    return np.frombuffer(bytes(row[0]), dtype=np.float32).reshape(dimension, dimension)


def firm_adapter(workspace_id: int, model: str) -> Matrix | None:
    """The adapter matrix of the workspace's firm for ``model``, or None."""
    version = _version(workspace_id, model)
    if version is None:
        return None
    adapter_id, trained_at, dimension = version
    key = (adapter_id, trained_at)
    with _cache_lock:
        matrix = _cache.get(key)
    if matrix is None:
        matrix = _load(adapter_id, dimension)
        with _cache_lock:
            if len(_cache) >= MAX_CACHED:
                _cache.clear()  # retrained adapters leave stale keys; a few firms per install
            _cache[key] = matrix
    return matrix


def adapt_query_vector(*, workspace_id: int, model: str, vector: list[float]) -> list[float]:
    """``vector`` through the firm's adapter for ``model`` (unchanged when it has none)."""
    if not settings.LEXROOM_SEARCH_ADAPTERS:
        return vector
    override = _override.get()
    matrix = firm_adapter(workspace_id, model) if override is _UNSET else override
    if matrix is None or matrix.shape != (len(vector), len(vector)):
        return vector
    import numpy as np

    adapted = matrix @ np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(adapted))
    if not norm:
        return vector
    return [float(x) for x in adapted / norm]
