"""Embedding: chunks without a vector (or with another model's), fairly across documents."""

from __future__ import annotations

from django.db import connection, transaction
from django.db.models import Count, Exists, OuterRef

from core.embeddings import get_encoder
from core.metrics import timed
from documents.models import Chunk, Document, DocumentStatus
from documents.selectors import needs_embedding
from documents.vector_index import vector_index_ensure

# Chunks a document takes per turn of an embedding batch: most contracts have fewer, so they
# are embedded whole in one batch, whatever is queued before them (CUAD: 39 on average).
FAIR_SHARE_CHUNKS = 64


def chunks_embed_pending(*, workspace_id: int, limit: int = 256, share: int | None = None) -> int:
    """Embed up to ``limit`` chunks whose vector is missing or from another model.

    Fair across documents: each document with chunks pending takes turns of up to ``share``
    chunks (the one with the fewest left first), so a small contract queued behind a huge
    one is embedded in the next batch, not after it. ``FOR UPDATE SKIP LOCKED`` lets several
    workers share the backlog without overlap. Returns how many were embedded (0 when
    nothing is left).
    """
    encoder = get_encoder()
    with transaction.atomic():
        pending = dict(
            Chunk.objects.filter(workspace_id=workspace_id)
            .filter(needs_embedding(encoder.name))
            .values("document_id")
            .annotate(chunks=Count("id"))
            .values_list("document_id", "chunks")
            .order_by()
        )
        shares = _fair_shares(pending, limit=limit, share=share or FAIR_SHARE_CHUNKS)
        if not shares:
            return 0
        with connection.cursor() as cursor:
            # Each document's first pending chunks, locked; rows another worker holds are
            # skipped, and that worker's next ones are taken instead.
            cursor.execute(
                "SELECT c.id, c.document_id, c.index_text"
                " FROM unnest(%s::bigint[], %s::int[]) AS share(document_id, quota)"
                " CROSS JOIN LATERAL ("
                "  SELECT id, document_id, index_text FROM documents_chunk"
                "  WHERE document_id = share.document_id"
                "   AND (embedding IS NULL OR embedding_model <> %s)"
                "  ORDER BY ordinal LIMIT share.quota FOR UPDATE SKIP LOCKED"
                " ) c",
                [list(shares), list(shares.values()), encoder.name],
            )
            chunks: list[tuple[int, int, str]] = cursor.fetchall()
        if not chunks:
            return 0
        with timed("embed"):
            vectors = encoder.encode([text for _, _, text in chunks])
        with timed("store"), connection.cursor() as cursor:
            # One statement per batch (not one per chunk): the vectors travel as text arrays.
            cursor.execute(
                "UPDATE documents_chunk AS c SET embedding = v.embedding::vector,"
                " embedding_model = %s, embedding_dim = %s"
                " FROM unnest(%s::bigint[], %s::text[]) AS v(id, embedding) WHERE c.id = v.id",
                [
                    encoder.name,
                    encoder.dimension,
                    [chunk_id for chunk_id, _, _ in chunks],
                    ["[" + ",".join(f"{x:.6f}" for x in vector) + "]" for vector in vectors],
                ],
            )
        vector_index_ensure(encoder.dimension)
        _mark_embedded({document_id for _, document_id, _ in chunks}, encoder.name)
    return len(chunks)


def _fair_shares(pending: dict[int, int], *, limit: int, share: int) -> dict[int, int]:
    """Chunks each document gets in a batch of ``limit``, from its chunks ``pending``: turns of
    up to ``share`` per document, the document with the fewest left first in each turn."""
    order = sorted(pending, key=lambda document_id: (pending[document_id], document_id))
    shares = dict.fromkeys(order, 0)
    left = min(limit, sum(pending.values()))
    while left > 0:
        for document_id in order:
            taken = min(share, pending[document_id] - shares[document_id], left)
            shares[document_id] += taken
            left -= taken
            if not left:
                break
    return {document_id: count for document_id, count in shares.items() if count}


def _mark_embedded(document_ids: set[int], model_name: str) -> None:
    pending = Chunk.objects.filter(document=OuterRef("pk")).filter(needs_embedding(model_name))
    Document.objects.filter(pk__in=document_ids, status=DocumentStatus.CHUNKED).exclude(
        Exists(pending)
    ).update(status=DocumentStatus.EMBEDDED)
