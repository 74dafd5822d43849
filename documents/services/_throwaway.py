"""Throwaway workspaces (benchmarks, evaluations, tests): deleted whole, originals included."""

from __future__ import annotations

from django.core.files.storage import default_storage
from django.db import connection

from documents.listeners import chunks_removing
from documents.models import Document, Entity, IngestBatch
from workspaces.models import AuditEvent, Workspace
from workspaces.tenancy import workspace_scope


def workspace_purge_throwaway(*, workspace: Workspace, drop_firm_if_unused: bool = True) -> None:
    """Delete a throwaway workspace, everything in it and its stored originals.

    Only for workspaces a benchmark or evaluation made for itself: it also deletes their
    audit rows (and, when nothing else uses it, the firm with its users), which a real
    workspace must never lose.
    """
    firm = workspace.firm
    workspace_contents_delete(workspace=workspace)
    with workspace_scope(workspace):
        firm_unused = not Workspace.objects.filter(firm=firm).exclude(pk=workspace.pk).exists()
        drop_firm = drop_firm_if_unused and firm_unused
        audit = AuditEvent.objects.filter(firm=firm)
        (audit if drop_firm else audit.filter(workspace=workspace)).delete()
        workspace.delete()
        if drop_firm:
            firm.users.all().delete()
            firm.delete()


def workspace_contents_delete(*, workspace: Workspace) -> None:
    """Every document, chunk, entity and batch of a throwaway workspace, and its originals."""
    with workspace_scope(workspace):
        documents = Document.objects.filter(workspace=workspace)
        originals = list(documents.values_list("original", flat=True))
        chunks_removing(workspace_id=workspace.pk, document_id=None)
        with connection.cursor() as cursor:
            # The ORM would load every chunk to cascade; a plain DELETE is what scales.
            cursor.execute("DELETE FROM documents_chunk WHERE workspace_id = %s", [workspace.pk])
        documents.delete()  # before entities: parties protect them
        Entity.objects.filter(workspace=workspace).delete()
        IngestBatch.objects.filter(workspace=workspace).delete()
    # Originals are stored under the workspace's id, so no other workspace shares them.
    for name in originals:
        default_storage.delete(name)
