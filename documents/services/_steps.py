"""Ingestion as an ordered list of small steps, declared once and run by one runner.

A document goes ``parse`` → ``metadata`` → ``chunk`` on its own (``STEPS``); its workspace
then goes ``embed`` → ``clause_types`` → ``analyze`` (``WORKSPACE_STEPS``: the embedding
queue, the tagging of chunks from their vectors and the amendment and duplicate analysis are
the workspace's, shared by every document in it).

Every step is idempotent. The status a document reached is saved with it, so a run stopped
in the middle (a crash, a worker killed) is finished by running again with ``resume=True``:
the runner starts at the first step the recorded status has not passed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db import transaction

from documents.models import Document, DocumentStatus
from documents.services._analysis import workspace_analyze
from documents.services._clause_types import chunks_tag_clause_types
from documents.services._embed import chunks_embed_pending
from documents.services._process import document_chunk, document_metadata_read, document_parse

# Chunks embedded per round of the embed step (one task, or one turn of the CLI's loop).
EMBED_BATCH = 256
# Chunks tagged with clause types per round (no encoding: a matrix product per batch).
TAG_BATCH = 2000


@dataclass(frozen=True)
class Step:
    """One step of a document: ``run`` takes the locked document and saves it."""

    name: str
    run: Callable[[Document], Document]
    leads_to: DocumentStatus  # the status a document has once the step succeeded


@dataclass(frozen=True)
class WorkspaceStep:
    """One step of a workspace: ``run`` does one bounded round and says how much it did."""

    name: str
    run: Callable[[int], int]
    repeat: bool  # run again while a round does some work (a queue drained in rounds)


def _embed_round(workspace_id: int) -> int:
    return chunks_embed_pending(workspace_id=workspace_id, limit=EMBED_BATCH)


def _tag_round(workspace_id: int) -> int:
    return chunks_tag_clause_types(workspace_id=workspace_id, limit=TAG_BATCH)


def _analyze(workspace_id: int) -> int:
    workspace_analyze(workspace_id=workspace_id)
    return 0


STEPS: tuple[Step, ...] = (
    Step("parse", document_parse, leads_to=DocumentStatus.PARSED),
    Step("metadata", document_metadata_read, leads_to=DocumentStatus.PARSED),
    # "embedded" at once for a document with no chunk: there is nothing to embed.
    Step("chunk", document_chunk, leads_to=DocumentStatus.CHUNKED),
)
WORKSPACE_STEPS: tuple[WorkspaceStep, ...] = (
    WorkspaceStep("embed", _embed_round, repeat=True),  # chunked → embedded
    # From the stored vectors; nothing to do before a classifier exists for the model.
    WorkspaceStep("clause_types", _tag_round, repeat=True),
    WorkspaceStep("analyze", _analyze, repeat=False),
)


def _resume_at(status: str) -> int:
    """Index of the first step a document with ``status`` still needs."""
    if status == DocumentStatus.EMBEDDED:
        return len(STEPS)
    # The last step that leads to the status may not have run yet (several lead to "parsed"):
    # resume after the first one, the steps being idempotent.
    for index, step in enumerate(STEPS):
        if step.leads_to == status:
            return index + 1
    return 0  # stored, or failed: from the start (a parser may have been fixed)


def document_process(*, workspace_id: int, document_id: int, resume: bool = False) -> Document:
    """Run the document's steps in order; a failure is recorded on it, not raised.

    From the first step (re-processing a document), or with ``resume`` from where its status
    says an earlier run stopped (nothing to do for a chunked or embedded one).
    """
    document = Document.objects.get(workspace_id=workspace_id, pk=document_id)
    for step in STEPS[_resume_at(document.status) if resume else 0 :]:
        document = step_run(step, workspace_id=workspace_id, document_id=document_id)
        if document.status == DocumentStatus.FAILED:
            break
    return document


@transaction.atomic
def step_run(step: Step, *, workspace_id: int, document_id: int) -> Document:
    """One step on the document, locked for its duration, in its own transaction."""
    document = Document.objects.select_for_update().get(workspace_id=workspace_id, pk=document_id)
    return step.run(document)


def workspace_round(*, workspace_id: int) -> int:
    """One round of the workspace steps: the first repeating step with work left does one
    round (its result is returned, to be called again); else every step has run once, 0."""
    for step in WORKSPACE_STEPS:
        done = step.run(workspace_id)
        if step.repeat and done:
            return done
    return 0
