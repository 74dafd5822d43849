"""Ingestion tasks. Each takes ids, runs in its workspace's tenant scope (via
workspaces.tasks.run_tenant_task) and calls one service; all are idempotent."""

from __future__ import annotations

from django.conf import settings

from documents.services import batch_processed_increment, document_process, workspace_round
from workspaces.tasks import enqueue


def process_document(*, workspace_id: int, document_id: int, batch_id: int | None = None) -> str:
    # Resumed: a task delivered again after a crash goes on from the last step that finished.
    document = document_process(workspace_id=workspace_id, document_id=document_id, resume=True)
    if batch_id is not None and batch_processed_increment(
        workspace_id=workspace_id, batch_id=batch_id
    ):
        embed_enqueue(workspace_id=workspace_id)
    return document.status


def embed_workspace(*, workspace_id: int) -> int:
    """One round of the workspace steps (embed a bounded batch, or analyse once nothing is
    left to embed); queues the next round while there is work."""
    embedded = workspace_round(workspace_id=workspace_id)
    if embedded:
        embed_enqueue(workspace_id=workspace_id)
    return embedded


def embed_enqueue(*, workspace_id: int) -> None:
    """The embedding rounds go to LEXROOM_EMBED_QUEUE when set: a GPU host runs
    ``Q_CLUSTER_NAME=<that name> manage.py qcluster`` and takes them; CPU hosts take the rest."""
    enqueue(embed_workspace, workspace_id=workspace_id, queue=settings.LEXROOM_EMBED_QUEUE)
