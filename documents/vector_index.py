"""The chunks' vector indexes: one partial HNSW (cosine) index per embedding dimension in use."""

from __future__ import annotations

import logging
from typing import Any

from django.db import DatabaseError, connection, connections, transaction

logger = logging.getLogger(__name__)

COMMON_DIMENSIONS = (384, 768, 1024)  # MiniLM / e5-small, e5-base, bge-m3


def _vector_index_create(cursor: Any, dimension: int) -> None:
    name = f"documents_chunk_embedding_hnsw_{int(dimension)}"
    cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", [name])
    if cursor.fetchone() is None:
        # CREATE INDEX refuses to run while deferred FK checks are pending in the
        # transaction: run them now, build the index, then defer again.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(
            f"CREATE INDEX IF NOT EXISTS {name} ON documents_chunk "
            f"USING hnsw ((embedding::vector({int(dimension)})) vector_cosine_ops) "
            f"WHERE embedding_dim = {int(dimension)}"
        )
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")


def vector_index_ensure(dimension: int) -> None:
    """One partial HNSW (cosine) index per embedding dimension in use; a no-op once built.

    ``migrate`` builds them (as the owner role, see :func:`vector_indexes_create`); the app
    role, which owns no table, cannot: a dimension ``migrate`` did not foresee is searched
    without its index until the next ``migrate``, and the log says so.
    """
    if dimension in _indexed_dimensions:
        return
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            _vector_index_create(cursor, dimension)
    except DatabaseError as exc:
        logger.warning(
            "No HNSW index for %d-dimension vectors (%s): run `python manage.py migrate`, "
            "which builds it as the owner role.", dimension, exc,
        )  # fmt: skip
    _indexed_dimensions.add(dimension)


def vector_indexes_create(sender: Any = None, using: str = "default", **kwargs: Any) -> None:
    """post_migrate: the HNSW index of each dimension stored, and of the common ones."""
    if sender is not None and getattr(sender, "name", "") != "documents":
        return
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT DISTINCT embedding_dim FROM documents_chunk WHERE embedding_dim > 0")
        stored = {int(row[0]) for row in cursor.fetchall()}
        for dimension in sorted(stored | set(COMMON_DIMENSIONS)):
            _vector_index_create(cursor, dimension)


_indexed_dimensions: set[int] = set()
