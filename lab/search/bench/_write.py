"""Writing a planned room: metadata through the ORM, chunks through a binary ``COPY``.

Documents, entities and parties are thousands of rows; chunks can be millions, so they go
into a temporary table and one ``INSERT ... SELECT`` per batch computes the weighted tsvector
in SQL, the same way :func:`documents.textsearch.chunk_vectors_update` does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import numpy as np
from django.db import connection
from numpy.typing import NDArray

from core.normalize import fold_accents
from documents.extraction import contract_type_key
from documents.models import Chunk, Document, DocumentLink, DocumentParty, DocumentStatus, Entity
from documents.textsearch import ts_config
from lab.search.bench._corpus import SENTENCES_PER_TOPIC, TOPICS, SentencePool, Topic, vector_rows
from lab.search.bench._plan import Plan, PlannedDocument
from workspaces.models import Workspace
from workspaces.tenancy import workspace_scope

CHUNK_BATCH_ROWS = 50_000
_STAGE_COLUMNS = "document_id, ordinal, heading, text, folded, embedding"
# search_vector exactly as chunk_vectors_update computes it: prefix (context and heading)
# weighted A, body B, both accent-folded.
_INSERT_CHUNKS = (
    "INSERT INTO documents_chunk (workspace_id, document_id, ordinal, kind, heading,"
    " article_ref, text, index_text, char_start, char_end, page_start, page_end,"
    " embedding, embedding_model, embedding_dim, search_vector) "
    "SELECT %s, s.document_id, s.ordinal, 'article', s.heading, s.ordinal + 1,"
    " s.text, d.context || E'\\n\\n' || s.text,"
    " coalesce(sum(length(s.text) + 2) OVER w - length(s.text) - 2, 0),"
    " sum(length(s.text) + 2) OVER w - 2, 1 + s.ordinal / 3, 1 + s.ordinal / 3,"
    " s.embedding, %s, %s,"
    " setweight(to_tsvector(d.config, d.folded || E'\\n\\n\\n' || fold_heading), 'A')"
    " || setweight(to_tsvector(d.config, s.folded), 'B') "
    "FROM bench_chunk_stage s JOIN bench_document_context d USING (document_id),"
    " LATERAL (SELECT split_part(s.folded, E'\\n', 1) AS fold_heading) h "
    "WINDOW w AS (PARTITION BY s.document_id ORDER BY s.ordinal)"
)


def write_metadata(*, workspace: Workspace, plan: Plan) -> list[int]:
    """Entities, documents, parties and amendment links through the ORM; document ids."""
    entities = Entity.objects.bulk_create(
        [
            Entity(workspace=workspace, key=fold_accents(name).lower(), name=name)
            for name in plan.entities
        ],
        batch_size=1000,
    )
    documents = Document.objects.bulk_create(
        [_document(workspace, planned) for planned in plan.documents], batch_size=2000
    )
    DocumentParty.objects.bulk_create(
        [
            DocumentParty(
                workspace=workspace,
                document=document,
                entity=entities[entity_index],
                name_as_written=entities[entity_index].name,
                ordinal=ordinal,
            )
            for document, planned in zip(documents, plan.documents, strict=True)
            for ordinal, entity_index in enumerate(planned.party_indexes)
        ],
        batch_size=5000,
    )
    DocumentLink.objects.bulk_create(
        [
            DocumentLink(
                workspace=workspace,
                source=document,
                target=documents[planned.amends],
                explanation=f"{planned.ref} modifie {plan.documents[planned.amends].ref}",
            )
            for document, planned in zip(documents, plan.documents, strict=True)
            if planned.amends is not None
        ],
        batch_size=2000,
    )
    return [document.pk for document in documents]


def _document(workspace: Workspace, planned: PlannedDocument) -> Document:
    return Document(
        workspace=workspace,
        ref=planned.ref,
        title=planned.title,
        filename=f"{planned.ref}.pdf",
        source="dataroom",
        media_type="pdf",
        sha256=hashlib.sha256(f"{workspace.slug}:{planned.ref}".encode()).hexdigest(),
        original=f"bench/{planned.ref}.pdf",
        status=DocumentStatus.EMBEDDED,
        language=planned.language,
        # Stored as the pipeline stores them: a vocabulary key, the signature's span.
        contract_type=contract_type_key(planned.contract_type) or "other",
        contract_type_title=planned.contract_type,
        signature_date=planned.signature_date,
        signature_precision="day" if planned.signature_date else "",
        signature_earliest=planned.signature_date,
        signature_latest=planned.signature_date,
        end_date=planned.end_date,
        end_date_source="text" if planned.end_date else "",
        end_date_kind="date" if planned.end_date else "",
        effective_end_date=planned.effective_end_date,
        effective_end_explanation=planned.effective_end_explanation,
        governing_law=planned.governing_law,
        governing_law_source="text" if planned.governing_law else "",
        is_amendment=planned.amends is not None,
        amendment_number=1 if planned.amends is not None else None,
    )


def write_chunks(
    *,
    workspace: Workspace,
    plan: Plan,
    document_ids: list[int],
    centroids: NDArray[Any],
    topics: list[Topic],
    model: str,
    progress: Callable[[str, int, int], None],
) -> None:
    """Every chunk, batch by batch: binary COPY into a temp table, then INSERT ... SELECT.

    Must run inside the workspace's tenant scope: the INSERT passes RLS's WITH CHECK.
    ``progress`` hears ``("chunks", done, total)`` after each batch.
    """
    dimension = int(centroids.shape[1])
    pool = SentencePool.build(topics, plan.seed)
    rng = np.random.default_rng(plan.seed + 2)
    per_batch = max(1, CHUNK_BATCH_ROWS // plan.chunks_per_contract)
    with connection.cursor() as cursor:
        _create_stage(cursor, plan, document_ids)
        done = 0
        for start in range(0, plan.contracts, per_batch):
            batch = list(
                zip(
                    document_ids[start : start + per_batch],
                    plan.documents[start : start + per_batch],
                    strict=True,
                )
            )
            _copy_batch(cursor.cursor, batch, plan, pool, topics, centroids, rng)
            cursor.execute(_INSERT_CHUNKS, [workspace.pk, model, dimension])
            cursor.execute("TRUNCATE bench_chunk_stage")
            done += len(batch) * plan.chunks_per_contract
            progress("chunks", done, plan.chunks)
        cursor.execute("DROP TABLE bench_chunk_stage")
        cursor.execute("DROP TABLE bench_document_context")


def _create_stage(cursor: Any, plan: Plan, document_ids: list[int]) -> None:
    """The temp tables: chunks to insert, and each document's context (index text prefix)."""
    cursor.execute("DROP TABLE IF EXISTS pg_temp.bench_chunk_stage")
    cursor.execute("DROP TABLE IF EXISTS pg_temp.bench_document_context")
    cursor.execute(
        "CREATE TEMP TABLE bench_chunk_stage (document_id bigint, ordinal integer,"
        " heading text, text text, folded text, embedding vector)"
    )
    cursor.execute(
        "CREATE TEMP TABLE bench_document_context (document_id bigint PRIMARY KEY,"
        " config regconfig, context text, folded text)"
    )
    contexts = []
    for document_id, planned in zip(document_ids, plan.documents, strict=True):
        # As chunking.index_text builds it: title — type, then the parties.
        context = f"{planned.title} — {planned.contract_type}\nParties: " + "; ".join(
            plan.entities[i] for i in planned.party_indexes
        )
        contexts.append((document_id, ts_config(planned.language), context, fold_accents(context)))
    cursor.executemany(
        "INSERT INTO bench_document_context VALUES (%s, %s::regconfig, %s, %s)", contexts
    )


def _copy_batch(
    raw: Any,
    batch: list[tuple[int, PlannedDocument]],
    plan: Plan,
    pool: SentencePool,
    topics: list[Topic],
    centroids: NDArray[Any],
    rng: np.random.Generator,
) -> None:
    """One batch of chunks into the stage table (``raw``: the psycopg cursor, for COPY)."""
    rows = len(batch) * plan.chunks_per_contract
    # Drawn in this order, batch after batch: the seed's room depends on it.
    topic_ids = rng.integers(0, TOPICS, rows)
    lengths = rng.integers(3, 7, rows)
    picks = rng.integers(0, SENTENCES_PER_TOPIC, (rows, 6)).tolist()
    vectors = vector_rows(topic_ids, centroids, rng)
    with raw.copy(f"COPY bench_chunk_stage ({_STAGE_COLUMNS}) FROM STDIN (FORMAT BINARY)") as copy:
        # The embedding goes as pgvector's own binary input: COPY BINARY hands the bytes to
        # the column's receive function whatever type psycopg thinks it is.
        copy.set_types(["int8", "int4", "text", "text", "text", "bytea"])
        row = 0
        for document_id, planned in batch:
            for ordinal in range(plan.chunks_per_contract):
                heading, text, folded = pool.chunk(
                    topics,
                    int(topic_ids[row]),
                    planned.language,
                    ordinal,
                    picks[row][: lengths[row]],
                )
                copy.write_row((document_id, ordinal, heading, text, folded, vectors[row]))
                row += 1


def complete(*, workspace: Workspace, plan: Plan) -> bool:
    """Whether the workspace holds the whole plan (every contract and chunk)."""
    with workspace_scope(workspace):
        documents = Document.objects.filter(workspace=workspace).count()
        chunks = Chunk.objects.filter(workspace=workspace).count()
    return documents == plan.contracts and chunks == plan.chunks
