"""Ingestion tasks. Each takes ids, runs in its workspace's tenant scope (via
workspaces.tasks.run_tenant_task) and calls one service; all are idempotent."""

from __future__ import annotations

from documents.analysis import workspace_analyze
from documents.models import IngestBatch
from documents.services import chunks_embed_pending, document_process
from workspaces.tasks import enqueue

EMBED_BATCH = 256


def process_document(*, workspace_id: int, document_id: int, batch_id: int | None = None) -> str:
    document = document_process(workspace_id=workspace_id, document_id=document_id)
    if batch_id is not None:
        batch = IngestBatch.objects.select_for_update().get(pk=batch_id, workspace_id=workspace_id)
        batch.processed += 1
        batch.save(update_fields=["processed"])
        if batch.processed >= len(batch.document_ids):
            enqueue(embed_workspace, workspace_id=workspace_id)
    return document.status


def embed_workspace(*, workspace_id: int) -> int:
    """Embed one bounded batch, then queue the next; analyse the workspace when done."""
    embedded = chunks_embed_pending(workspace_id=workspace_id, limit=EMBED_BATCH)
    if embedded:
        enqueue(embed_workspace, workspace_id=workspace_id)
    else:
        workspace_analyze(workspace_id=workspace_id)
    return embedded
