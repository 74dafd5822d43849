"""The vector arm: chunks nearest the query's embedding (pgvector, cosine)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from core.embeddings import get_encoder
from search.ranking._common import ArmRow, doc_filter
from search.replica import read_connection

# Filters leaving at most this many documents: exact vector search over their chunks
# (measured at 1M chunks: 3 contracts 13 ms, 100 contracts 95 ms; HNSW 4 and 30 ms, but a
# filtered HNSW scan may stop short of the few matching chunks in a real workspace).
EXACT_VECTOR_MAX_DOCUMENTS = 20
# A workspace this small whose index scan came up short is read exactly (milliseconds).
EXACT_VECTOR_MAX_CHUNKS = 5_000


def embed_query(query: str) -> tuple[list[float], int, str]:
    encoder = get_encoder()
    return _embed_query_cached(encoder.name, query)


@lru_cache(maxsize=2048)
def _embed_query_cached(model_name: str, query: str) -> tuple[list[float], int, str]:
    # Agents and users repeat queries (paging, refinements): the encoder is the slow part.
    encoder = get_encoder()
    vector = encoder.encode_queries([query])[0]
    return [float(x) for x in vector], encoder.dimension, encoder.name


def vector_arm(
    *,
    workspace_id: int,
    query_vector: list[float],
    dimension: int,
    model: str,
    document_ids: Sequence[int] | None,
    limit: int,
    clause_types: Sequence[str] = (),
) -> list[ArmRow]:
    """(chunk id, document id, cosine similarity), nearest first.

    Via the HNSW index, or exactly over the candidate documents' chunks when the filters
    leave few documents: a filtered HNSW scan gives up after ``hnsw.max_scan_tuples`` and
    could return nothing for a single contract in a large workspace.
    """
    dim = int(dimension)
    where, params = doc_filter(document_ids, clause_types)
    literal = "[" + ",".join(f"{x:.7f}" for x in query_vector) + "]"
    exact = document_ids is not None and len(document_ids) <= EXACT_VECTOR_MAX_DOCUMENTS
    args = [literal, workspace_id, model, *params, literal, limit]
    rows = _nearest(dim, where, args, exact=exact)
    if not exact and len(rows) < limit and _chunks(workspace_id) <= EXACT_VECTOR_MAX_CHUNKS:
        # The index is shared by every firm: a small workspace among many others' chunks can
        # come up short however far the filtered scan goes. Its own chunks, read exactly,
        # give what it holds (a firm's corpus never shrinks another's results).
        rows = _nearest(dim, where, args, exact=True)
    rows.sort(key=lambda row: (-row[2], row[0]))
    return rows


def _nearest(dim: int, where: str, args: list[Any], *, exact: bool) -> list[ArmRow]:
    limit = int(args[-1])
    distance = f"c.embedding::vector({dim}) <=> %s::vector({dim})"
    sql = (
        f"SELECT c.id, c.document_id, 1 - ({distance}) "
        "FROM documents_chunk c "
        # The dimension is a literal so the planner can match the partial index on it.
        f"WHERE c.workspace_id = %s AND c.embedding_dim = {dim} AND c.embedding_model = %s{where} "
        # "+ 0": an expression the HNSW index cannot serve, so the document index is used.
        f"ORDER BY {f'({distance}) + 0' if exact else distance} LIMIT %s"
    )
    with read_connection().cursor() as cursor:
        # Filtered HNSW scans keep going until `limit` rows pass the filters.
        cursor.execute("SET LOCAL hnsw.iterative_scan = 'relaxed_order'")
        cursor.execute(f"SET LOCAL hnsw.ef_search = {max(40, min(1000, limit))}")
        cursor.execute(sql, args)
        return [(row[0], row[1], float(row[2])) for row in cursor.fetchall()]


def _chunks(workspace_id: int) -> int:
    """The workspace's chunks, counted up to one past the exact scan's bound."""
    with read_connection().cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM (SELECT 1 FROM documents_chunk WHERE workspace_id = %s "
            "LIMIT %s) AS bounded",
            [workspace_id, EXACT_VECTOR_MAX_CHUNKS + 1],
        )
        return int(cursor.fetchone()[0])
