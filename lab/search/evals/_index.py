"""An evaluation corpus indexed through the product's own ingestion path, once.

Each suite gets its own workspace (firm "Lexroom Eval", slug ``eval-<suite>``); documents go
in through ``dataroom_store`` / ``store_dataroom`` and ``run_in_process`` (the real parsing,
chunking, tsvectors and embeddings), so the eval measures what a user's search would see.
A corpus fingerprint kept in the workspace title lets a later run reuse the index.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from documents.models import Document, DocumentStatus, DuplicateGroup, Entity, IngestBatch
from documents.pipeline import run_in_process
from documents.services import (
    batch_create,
    chunks_pending_embedding,
    dataroom_store,
    workspace_tag_clause_types,
)
from lab.report import Reporter
from search.models import TextStats
from search.services import text_stats_refresh
from workspaces.models import User, Workspace
from workspaces.services import firm_get_or_create, user_get_or_create, workspace_create
from workspaces.tenancy import workspace_scope

EVAL_FIRM = "Lexroom Eval"
EVAL_USER = "eval@lexroom.local"
MAX_REF_CHARS = 32  # Document.ref

Store = Callable[[Workspace, User], IngestBatch]


@dataclass
class IndexedCorpus:
    workspace: Workspace
    corpus_id_by_document: dict[int, str]  # Document pk -> the dataset's own id
    seconds: float
    reused: bool
    failed: list[str] = field(default_factory=list)


def scope(workspace: Workspace) -> AbstractContextManager[None]:
    return workspace_scope(workspace)


# The command running the suite, so its notes follow --verbosity; plain stderr without one.
_reporter: ContextVar[Reporter | None] = ContextVar("eval_reporter", default=None)


@contextmanager
def reporting_to(reporter: Reporter) -> Iterator[None]:
    token = _reporter.set(reporter)
    try:
        yield
    finally:
        _reporter.reset(token)


def log(message: str) -> None:
    """Progress goes to stderr: stdout carries the one JSON object."""
    reporter = _reporter.get()
    if reporter is None:
        print(message, file=sys.stderr, flush=True)
    else:
        reporter.note(message)


def fingerprint(payload: Any) -> str:
    canonical = json.dumps(payload, ensure_ascii=False, sort_keys=True).encode()
    return hashlib.sha256(canonical).hexdigest()[:16]


def eval_workspace(*, suite: str) -> tuple[Workspace, User]:
    firm, _ = firm_get_or_create(name=EVAL_FIRM)
    user, _ = user_get_or_create(email=EVAL_USER, firm=firm, actor_label="system:eval")
    workspace, _ = workspace_create(
        firm=firm,
        slug=f"eval-{suite}",
        title=f"Évaluation {suite}",
        owner=user,
        actor_label="system:eval",
    )
    return workspace, user


def _title(suite: str, corpus_fingerprint: str) -> str:
    return f"Évaluation {suite} · corpus {corpus_fingerprint}"


def _wipe(workspace: Workspace) -> None:
    with scope(workspace):
        Document.objects.filter(workspace=workspace).delete()
        DuplicateGroup.objects.filter(workspace=workspace).delete()
        Entity.objects.filter(workspace=workspace).delete()
        IngestBatch.objects.filter(workspace=workspace).delete()


_last_decile: dict[str, int] = {}


def _progress(stage: str, done: int, total: int) -> None:
    # Embedding reports in steps of 256: log each tenth crossed, not each exact multiple.
    decile = done * 10 // max(1, total)
    if decile != _last_decile.get(stage):
        _last_decile[stage] = decile
        log(f"  {stage}: {done}/{total}")


def corpus_index(
    *,
    suite: str,
    corpus_fingerprint: str,
    expected_documents: int,
    store: Store,
    corpus_id_by_ref: dict[str, str],
    reindex: bool,
) -> IndexedCorpus:
    """Index the corpus into the suite's workspace, or reuse it if it already holds it."""
    started = time.perf_counter()
    workspace, user = eval_workspace(suite=suite)
    title = _title(suite, corpus_fingerprint)
    with scope(workspace):
        present = Document.objects.filter(workspace=workspace).count()
    reused = not reindex and workspace.title == title and present == expected_documents
    if not reused:
        log(f"[{suite}] indexing {expected_documents} documents into {workspace.slug}")
        _wipe(workspace)
        # The fingerprint is written only once the index is complete: an interrupted run
        # leaves a title that does not match, so the next run rebuilds.
        Workspace.objects.filter(pk=workspace.pk).update(title=f"Évaluation {suite}")
        with scope(workspace):
            batch = store(workspace, user)
        run_in_process(workspace=workspace, batch=batch, progress=_progress)
        Workspace.objects.filter(pk=workspace.pk).update(title=title)
        workspace.refresh_from_db()
    else:
        with scope(workspace):
            pending = chunks_pending_embedding(workspace_id=workspace.pk)
        if pending:
            # Same corpus, another embedding model: only the vectors need redoing.
            log(f"[{suite}] re-embedding {pending} chunks for the configured model")
            with scope(workspace):
                batch = batch_create(workspace=workspace, label="re-embed", results=[], user=user)
            run_in_process(workspace=workspace, batch=batch, progress=_progress)
        with scope(workspace):
            # An index built before the statistics existed (or by an older version).
            if not TextStats.objects.filter(workspace=workspace).exists():
                text_stats_refresh(workspace_id=workspace.pk)
        _tag_pending(workspace)
    with scope(workspace):
        rows = list(Document.objects.filter(workspace=workspace).values_list("pk", "ref", "status"))
    failed = sorted(ref for _, ref, status in rows if status == DocumentStatus.FAILED)
    return IndexedCorpus(
        workspace=workspace,
        corpus_id_by_document={
            pk: corpus_id_by_ref[ref] for pk, ref, _ in rows if ref in corpus_id_by_ref
        },
        seconds=time.perf_counter() - started,
        reused=reused,
        failed=failed,
    )


def _tag_pending(workspace: Workspace) -> None:
    """Chunks of a reused index not tagged by the current classifier (one trained since):
    tagged the way the ingestion's clause-types step tags them."""
    tagged = workspace_tag_clause_types(workspace=workspace)
    if tagged:
        log(f"  tagged {tagged} chunks with clause types")


def entries_store(entries: Sequence[dict[str, Any]], label: str) -> Store:
    """A store step that imports ``entries`` as data-room contracts (the import's own path)."""

    def store(workspace: Workspace, user: User) -> IngestBatch:
        results = dataroom_store(workspace=workspace, entries=list(entries), user=user)
        return batch_create(workspace=workspace, label=label, results=results, user=user)

    return store


def short_ref(corpus_id: str, taken: set[str]) -> str:
    """The corpus id itself when it fits ``Document.ref``, else a stable hash of it."""
    ref = corpus_id if len(corpus_id) <= MAX_REF_CHARS else ""
    if not ref or ref in taken:
        ref = "k" + hashlib.sha256(corpus_id.encode()).hexdigest()[:20]
    taken.add(ref)
    return ref
