"""Full-text indexing of chunks: accent-folded, weighted tsvectors in the document's language.

The embedded Postgres has no ``unaccent`` extension, so accents are folded here, the same
way for the stored vectors and for queries (:func:`fold`), which keeps them comparable.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable

from django.db import connection

# Postgres text-search configurations per detected document language.
TS_CONFIGS = {"fr": "french", "en": "english"}
QUERY_CONFIGS = ("french", "english")

# Apps above documents listen here (search keeps its BM25 word statistics current as each
# document is chunked), so documents never imports them. Each is called inside the writing
# transaction with workspace_id and document_id (None: every document of the workspace).
CHUNKS_REMOVING_HOOKS: list[Callable[..., object]] = []  # before chunks are deleted
CHUNKS_INDEXED_HOOKS: list[Callable[..., object]] = []  # after new chunks got their tsvector


def fold(text: str) -> str:
    """Accents removed, ligatures expanded (é → e, œ → oe), case kept for websearch syntax."""
    decomposed = unicodedata.normalize("NFKD", text.replace("œ", "oe").replace("Œ", "OE"))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def ts_config(language: str) -> str:
    return TS_CONFIGS.get(language, "simple")


def chunk_vectors_update(rows: Iterable[tuple[int, str, str, str]]) -> None:
    """Store the tsvector of each (chunk_id, language, prefix, body).

    The prefix (contract title, parties, type, heading) is weighted A, the body B, so a
    heading or title hit ranks above a passing mention in the text.
    """
    params = [
        (ts_config(language), fold(prefix), ts_config(language), fold(body), chunk_id)
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


def chunks_removing(*, workspace_id: int, document_id: int | None) -> None:
    """Tell the listeners a document's chunks (None: the workspace's) are about to go."""
    for hook in CHUNKS_REMOVING_HOOKS:
        hook(workspace_id=workspace_id, document_id=document_id)


def chunks_indexed(*, workspace_id: int, document_id: int) -> None:
    """Tell the listeners a document's new chunks are stored with their tsvectors."""
    for hook in CHUNKS_INDEXED_HOOKS:
        hook(workspace_id=workspace_id, document_id=document_id)
