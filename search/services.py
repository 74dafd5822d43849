"""Writes of the search app: the per-workspace text statistics BM25 needs, and the members'
relevance judgments on results (the adapter's training data, :mod:`search.learning`).

They follow each document as it is chunked, re-chunked or removed (documents.textsearch
hooks), so full-text finds a document before it is embedded; a full recount after each
ingestion batch (documents.analysis hook) clears any drift. Writers of one workspace's
statistics take turns (an advisory lock): two upserts of the same words in different orders
could deadlock, and a recount must not interleave with an increment.
"""

from __future__ import annotations

from typing import Any, Literal

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext

from core.embeddings import embedding_model_name
from documents.models import Chunk
from search.errors import InvalidSearchArguments, ResultNotFound
from search.models import LexemeStat, RelevanceJudgment, TextStats
from search.paging import clean_query
from search.selectors import query_digest
from workspaces.audit import audit_record
from workspaces.locks import LockNamespace, workspace_xact_lock
from workspaces.models import User, Workspace


def _lock(workspace_id: int) -> None:
    workspace_xact_lock(namespace=LockNamespace.TEXT_STATS, workspace_id=workspace_id)


def _vectors_sql(column: Literal["workspace_id", "document_id"], value: int) -> str:
    """The query ts_stat reads: a workspace's chunks or one document's (SQL text: only an
    int is interpolated; RLS still applies)."""
    return (
        "SELECT search_vector FROM documents_chunk"  # noqa: S608
        f" WHERE {column} = {int(value)} AND search_vector IS NOT NULL"
    )


@transaction.atomic
def text_stats_refresh(*, workspace_id: int) -> int:
    """Recount lexeme document frequencies over the workspace's chunks (ts_stat).

    Runs after each ingestion batch (documents.analysis hook). Returns the lexeme count.
    """
    _lock(workspace_id)
    LexemeStat.objects.filter(workspace_id=workspace_id).delete()
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO search_lexemestat (workspace_id, lexeme, chunks) "
            "SELECT %s, word, ndoc FROM ts_stat(%s)",
            [workspace_id, _vectors_sql("workspace_id", workspace_id)],
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


@transaction.atomic
def text_stats_add_document(*, workspace_id: int, document_id: int) -> None:
    """Count a just-chunked document's words in (documents.textsearch hook).

    A workspace without statistics yet gets a full count instead: counting one document
    alone would hide every other document's words from the full-text arm.
    """
    _lock(workspace_id)
    if not TextStats.objects.filter(workspace_id=workspace_id).exists():
        text_stats_refresh(workspace_id=workspace_id)
        return
    with connection.cursor() as cursor:
        # One document's chunks by document_id alone: with the workspace too, a planner
        # without fresh statistics (a workspace filling up) walks the whole workspace's index.
        # In lexeme order, so concurrent writers would lock rows in the same order.
        cursor.execute(
            "INSERT INTO search_lexemestat (workspace_id, lexeme, chunks) "
            "SELECT %s, word, ndoc FROM ts_stat(%s) ORDER BY word "
            "ON CONFLICT (workspace_id, lexeme) "
            "DO UPDATE SET chunks = search_lexemestat.chunks + EXCLUDED.chunks",
            [workspace_id, _vectors_sql("document_id", document_id)],
        )
    _totals_shift(workspace_id, document_id, sign=1)


@transaction.atomic
def text_stats_remove_document(*, workspace_id: int, document_id: int | None) -> None:
    """Count a document's words out before its chunks are deleted (documents.textsearch
    hook); ``document_id`` None: every chunk of the workspace goes, and its statistics."""
    _lock(workspace_id)
    if document_id is None:
        LexemeStat.objects.filter(workspace_id=workspace_id).delete()
        TextStats.objects.filter(workspace_id=workspace_id).delete()
        return
    if not TextStats.objects.filter(workspace_id=workspace_id).exists():
        return
    with connection.cursor() as cursor:
        # Rows left at 0 are ignored by ranking and dropped by the next recount.
        cursor.execute(
            "UPDATE search_lexemestat AS s SET chunks = greatest(s.chunks - d.ndoc, 0) "
            "FROM (SELECT word, ndoc FROM ts_stat(%s) ORDER BY word) AS d "
            "WHERE s.workspace_id = %s AND s.lexeme = d.word",
            [_vectors_sql("document_id", document_id), workspace_id],
        )
    _totals_shift(workspace_id, document_id, sign=-1)


def _totals_shift(workspace_id: int, document_id: int, *, sign: int) -> None:
    """Add (sign 1) or take out (-1) the document's chunks from the count and mean length."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), coalesce(sum(length(search_vector)), 0) FROM documents_chunk "
            "WHERE document_id = %s AND search_vector IS NOT NULL",
            [document_id],
        )
        chunks, length = cursor.fetchone()
        if not chunks:
            return
        cursor.execute(
            "UPDATE search_textstats SET mean_length = CASE WHEN chunks + %(chunks)s > 0"
            "   THEN greatest((mean_length * chunks + %(length)s) / (chunks + %(chunks)s), 1.0)"
            "   ELSE 1.0 END,"
            " chunks = greatest(chunks + %(chunks)s, 0), updated_at = now() "
            "WHERE workspace_id = %(workspace_id)s",
            {"chunks": sign * chunks, "length": float(sign * length), "workspace_id": workspace_id},
        )


class TextStatistics:
    """Keeps the BM25 statistics in step with ingestion (a documents.listeners.IndexListener)."""

    def chunks_removing(self, *, workspace_id: int, document_id: int | None) -> None:
        text_stats_remove_document(workspace_id=workspace_id, document_id=document_id)

    def chunks_indexed(self, *, workspace_id: int, document_id: int) -> None:
        text_stats_add_document(workspace_id=workspace_id, document_id=document_id)

    def workspace_analyzed(self, *, workspace_id: int) -> None:
        text_stats_refresh(workspace_id=workspace_id)


class JudgmentCleanup:
    """Ratings go with the articles they rate (a documents.listeners.IndexListener): a purge
    deletes chunks in plain SQL, which no ORM cascade follows."""

    def chunks_removing(self, *, workspace_id: int, document_id: int | None) -> None:
        judgments = RelevanceJudgment.objects.filter(workspace_id=workspace_id)
        if document_id is not None:
            judgments = judgments.filter(chunk__document_id=document_id)
        judgments.delete()

    def chunks_indexed(self, *, workspace_id: int, document_id: int) -> None:
        pass

    def workspace_analyzed(self, *, workspace_id: int) -> None:
        pass


# --- Relevance judgments ------------------------------------------------------------------


def _judged_query(query: str | None) -> str:
    cleaned = clean_query(query)
    if cleaned is None:
        raise InvalidSearchArguments(
            gettext("query is required: the words of the search the result came from."),
            {"field": "query"},
        )
    return cleaned


@transaction.atomic
def judgment_set(
    *, workspace: Workspace, user: User, query: str | None, chunk_id: int, relevant: bool | None
) -> tuple[Chunk, RelevanceJudgment | None]:
    """Record ``user``'s verdict on article ``chunk_id`` for ``query`` (again: overwrite);
    ``relevant`` None removes it. Runs in the workspace's tenant scope; audited.

    An article outside the workspace raises :class:`ResultNotFound`, as a missing one does.
    """
    text = _judged_query(query)
    chunk = (
        Chunk.objects.filter(workspace=workspace, pk=chunk_id)
        .select_related("document")
        .only("pk", "document__ref")
        .first()
    )
    if chunk is None:
        raise ResultNotFound(chunk_id)
    digest = query_digest(text)
    key: dict[str, Any] = {
        "workspace": workspace,
        "user": user,
        "query_sha256": digest,
        "chunk": chunk,
    }
    judgment: RelevanceJudgment | None = None
    if relevant is None:
        changed = RelevanceJudgment.objects.filter(**key).delete()[0] > 0
    else:
        values = {
            "query": text,
            "relevant": relevant,
            "embedding_model": embedding_model_name(),
            "updated_at": timezone.now(),
        }
        judgment, _created = RelevanceJudgment.objects.update_or_create(defaults=values, **key)
        changed = True
    if changed:
        audit_record(
            firm=workspace.firm,
            workspace=workspace,
            actor=user,
            action="search.judgment_removed" if relevant is None else "search.judgment_set",
            target=f"{chunk.document.ref}#{chunk.pk}",
            details={"query_sha256": digest[:16], "relevant": relevant},
        )
    return chunk, judgment
