"""Ingestion writes: store the original, then process it in small steps.

``document_store`` is the only way a document enters a workspace (web, REST, CLI, import);
it keeps the original bytes before anything else can fail. The later steps (``_steps``:
parse, metadata, chunk per document; embed, analyze per workspace) are idempotent and run in
tasks, or in-process from the CLI when no worker is running.

Parts: ``_store`` (uploads, data-room entries, batches), ``_process`` and ``_metadata`` (the
document's steps), ``_steps`` (their declaration and runner), ``_embed`` (vectors),
``_clause_types`` (clause types from the stored vectors), ``_analysis`` (what the workspace
analysis found: amendment links, effective end dates, duplicate groups),
``_entities`` (parties' companies, admin merges), ``_throwaway`` (benchmark workspaces).
"""

from __future__ import annotations

from documents.selectors import chunks_pending_embedding
from documents.services._analysis import AnalysisSummary, workspace_analyze
from documents.services._clause_types import chunks_tag_clause_types, workspace_tag_clause_types
from documents.services._embed import FAIR_SHARE_CHUNKS, _fair_shares, chunks_embed_pending
from documents.services._entities import entity_merge, entity_split_alias
from documents.services._process import JSON_SOURCES
from documents.services._steps import (
    EMBED_BATCH,
    STEPS,
    WORKSPACE_STEPS,
    Step,
    WorkspaceStep,
    document_process,
    step_run,
    workspace_round,
)
from documents.services._store import (
    DATAROOM_FIELDS,
    IngestError,
    StoreResult,
    batch_create,
    batch_processed_increment,
    batch_processed_set,
    dataroom_entries,
    dataroom_store,
    document_store,
)
from documents.services._throwaway import workspace_contents_delete, workspace_purge_throwaway

__all__ = [
    "DATAROOM_FIELDS",
    "EMBED_BATCH",
    "FAIR_SHARE_CHUNKS",
    "JSON_SOURCES",
    "STEPS",
    "WORKSPACE_STEPS",
    "AnalysisSummary",
    "IngestError",
    "Step",
    "StoreResult",
    "WorkspaceStep",
    "_fair_shares",
    "batch_create",
    "batch_processed_increment",
    "batch_processed_set",
    "chunks_embed_pending",
    "chunks_pending_embedding",
    "chunks_tag_clause_types",
    "dataroom_entries",
    "dataroom_store",
    "document_process",
    "document_store",
    "entity_merge",
    "entity_split_alias",
    "step_run",
    "workspace_analyze",
    "workspace_contents_delete",
    "workspace_purge_throwaway",
    "workspace_round",
    "workspace_tag_clause_types",
]
