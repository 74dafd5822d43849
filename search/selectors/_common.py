"""What every search selector starts from: the workspace's searchable contracts."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from documents.models import Document, DocumentParty, DocumentStatus
from workspaces.models import Workspace

SEARCHABLE = (DocumentStatus.CHUNKED, DocumentStatus.EMBEDDED)


def searchable_documents(workspace: Workspace) -> QuerySet[Document]:
    """Contracts ready to search, with their parties, without their (large) text."""
    parties = Prefetch(
        "parties", queryset=DocumentParty.objects.select_related("entity").order_by("ordinal")
    )
    return (
        Document.objects.filter(workspace=workspace, status__in=SEARCHABLE)
        .defer("text", "minhash", "page_starts", "raw_metadata", "provenance", "identifiers")
        .prefetch_related(parties)
    )
