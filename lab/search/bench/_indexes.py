"""The shared full-text and HNSW indexes the benchmark drops for a fast load, then rebuilds."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction

# SQL in this module is assembled from constants and integer dimensions only (ruff S608).

GIN_INDEX = "chunk_search_vector_gin"
GIN_DEFINITION = f"CREATE INDEX {GIN_INDEX} ON documents_chunk USING gin (search_vector)"


def hnsw_index_name(dimension: int) -> str:
    return f"documents_chunk_embedding_hnsw_{int(dimension)}"


def hnsw_definition(dimension: int) -> str:
    """The definition documents.vector_index.vector_index_ensure uses (kept identical)."""
    dim = int(dimension)
    return (
        f"CREATE INDEX {hnsw_index_name(dim)} ON documents_chunk "
        f"USING hnsw ((embedding::vector({dim})) vector_cosine_ops) WHERE embedding_dim = {dim}"
    )


def _index_definition(name: str) -> str | None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", [name])
        row = cursor.fetchone()
    return str(row[0]) if row else None


@dataclass
class SharedIndexes:
    """The two indexes the benchmark drops for a fast load, then rebuilds (timed).

    They are shared by every workspace of the database: run the benchmark on its own data
    directory, not on a live install.
    """

    dimension: int
    definitions: dict[str, str] = field(default_factory=dict)
    dropped: bool = False

    def drop(self) -> None:
        gin = _index_definition(GIN_INDEX) or GIN_DEFINITION
        hnsw_name = hnsw_index_name(self.dimension)
        hnsw = _index_definition(hnsw_name) or hnsw_definition(self.dimension)
        self.definitions = {GIN_INDEX: gin, hnsw_name: hnsw}
        with transaction.atomic(), connection.cursor() as cursor:
            _immediate(cursor)
            for name in self.definitions:
                cursor.execute(f"DROP INDEX IF EXISTS {name}")
            _deferred(cursor)
        self.dropped = True

    def rebuild(self, *, maintenance_work_mem: str, workers: int) -> dict[str, float]:
        """Seconds to build each index (GIN, then HNSW); ANALYZE afterwards."""
        seconds: dict[str, float] = {}
        for key, name in (("gin", GIN_INDEX), ("hnsw", hnsw_index_name(self.dimension))):
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(
                    "SELECT set_config('maintenance_work_mem', %s, true)", [maintenance_work_mem]
                )
                cursor.execute(
                    "SELECT set_config('max_parallel_maintenance_workers', %s, true)",
                    [str(int(workers))],
                )
                _immediate(cursor)
                started = time.perf_counter()
                cursor.execute(f"DROP INDEX IF EXISTS {name}")
                cursor.execute(self.definitions[name])
                seconds[key] = round(time.perf_counter() - started, 3)
                _deferred(cursor)
        self.dropped = False
        analyze()
        return seconds

    def restore(self) -> None:
        """Put the indexes back untimed (after a failure between drop and rebuild)."""
        if not self.dropped:
            return
        with transaction.atomic(), connection.cursor() as cursor:
            _immediate(cursor)
            for definition in self.definitions.values():
                cursor.execute(definition.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS", 1))
            _deferred(cursor)
        self.dropped = False


def _immediate(cursor: Any) -> None:
    # Index DDL refuses to run while deferred FK checks are pending in the transaction (the
    # rows just written, or a test's): run them now, as vector_index_ensure does.
    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def _deferred(cursor: Any) -> None:
    cursor.execute("SET CONSTRAINTS ALL DEFERRED")


def analyze() -> None:
    with connection.cursor() as cursor:
        for table in (
            "documents_chunk",
            "documents_document",
            "documents_documentparty",
            "documents_entity",
        ):
            cursor.execute(f"ANALYZE {table}")
