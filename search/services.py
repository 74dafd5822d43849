"""Writes of the search app: refreshing the per-workspace text statistics BM25 needs."""

from __future__ import annotations

from django.db import connection, transaction

from search.models import LexemeStat, TextStats


@transaction.atomic
def text_stats_refresh(*, workspace_id: int) -> int:
    """Recount lexeme document frequencies over the workspace's chunks (ts_stat).

    Runs after each ingestion batch (documents.analysis hook). Returns the lexeme count.
    """
    LexemeStat.objects.filter(workspace_id=workspace_id).delete()
    statement = (  # ts_stat takes SQL text: only an int is interpolated
        "SELECT search_vector FROM documents_chunk"  # noqa: S608
        f" WHERE workspace_id = {int(workspace_id)} AND search_vector IS NOT NULL"
    )
    with connection.cursor() as cursor:
        # ts_stat takes a query text; the workspace id is an int, and RLS still applies.
        cursor.execute(
            "INSERT INTO search_lexemestat (workspace_id, lexeme, chunks) "
            "SELECT %s, word, ndoc FROM ts_stat(%s)",
            [workspace_id, statement],
        )
        cursor.execute(
            "SELECT count(*), coalesce(avg(length(search_vector)), 0) FROM documents_chunk "
            "WHERE workspace_id = %s AND search_vector IS NOT NULL",
            [workspace_id],
        )
        chunks, mean_length = cursor.fetchone()
    TextStats.objects.update_or_create(
        workspace_id=workspace_id,
        defaults={"chunks": chunks, "mean_length": float(mean_length) or 1.0},
    )
    return LexemeStat.objects.filter(workspace_id=workspace_id).count()
