"""Full-text indexing of chunks: accent-folded, weighted tsvectors in the document's language.

The embedded Postgres has no ``unaccent`` extension, so accents are folded in Python, the
same way for the stored vectors and for queries (``core.normalize.fold_accents``),
which keeps them comparable.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection

from core.normalize import fold_accents

# Postgres text-search configurations per detected document language.
TS_CONFIGS = {"fr": "french", "en": "english"}
QUERY_CONFIGS = ("french", "english")


def ts_config(language: str) -> str:
    return TS_CONFIGS.get(language, "simple")


def chunk_vectors_update(rows: Iterable[tuple[int, str, str, str]]) -> None:
    """Store the tsvector of each (chunk_id, language, prefix, body).

    The prefix (contract title, parties, type, heading) is weighted A, the body B, so a
    heading or title hit ranks above a passing mention in the text.
    """
    params = [
        (
            ts_config(language),
            fold_accents(prefix),
            ts_config(language),
            fold_accents(body),
            chunk_id,
        )
        for chunk_id, language, prefix, body in rows
    ]
    if not params:
        return
    with connection.cursor() as cursor:
        cursor.executemany(
            "UPDATE documents_chunk SET search_vector ="
            " setweight(to_tsvector(%s::regconfig, %s), 'A') ||"
            " setweight(to_tsvector(%s::regconfig, %s), 'B')"
            " WHERE id = %s",
            params,
        )
