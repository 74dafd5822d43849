"""Runs an ingestion batch to the end: queued for workers, or in-process when none runs.

Used by the CLI commands (and the web upload, which only queues). Every step is the same
service call the worker makes, each in its own tenant-scoped transaction.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.utils.translation import gettext

from documents import parsing
from documents.models import Document, DocumentStatus, IngestBatch
from documents.selectors import FINAL_STATUSES, batch_status
from documents.services import (
    WORKSPACE_STEPS,
    IngestError,
    StoreResult,
    batch_create,
    batch_processed_set,
    chunks_pending_embedding,
    dataroom_entries,
    dataroom_store,
    document_process,
    document_store,
)
from documents.tasks import embed_enqueue, process_document
from workspaces.models import User, Workspace
from workspaces.tasks import enqueue, live_clusters
from workspaces.tenancy import workspace_scope

Progress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass
class BatchReport:
    batch_id: int
    stored: int = 0
    already_present: int = 0
    refused: list[dict[str, str]] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)
    failures: list[dict[str, str]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


def worker_alive() -> bool:
    """Is a django-q2 cluster running against this database? (stats in the shared cache)."""
    try:
        return bool(live_clusters())
    except Exception:  # a missing cache table means no worker ever ran
        return False


# --- Collecting files ------------------------------------------------------------------


def iter_files(paths: list[Path]) -> Iterator[tuple[str, bytes | IngestError]]:
    """(name, bytes or refusal) for files and the files in folders; ZIPs expand when stored."""
    for path in paths:
        if path.is_dir():
            for child in sorted(p for p in path.rglob("*") if p.is_file()):
                yield from iter_files([child])
            continue
        if not path.is_file():
            message = gettext("%(file)s: no such file or folder.") % {"file": path}
            yield str(path), IngestError("missing", message)
            continue
        if path.stat().st_size > settings.LEXROOM_MAX_UPLOAD_BYTES * 4 and path.suffix != ".zip":
            message = gettext("%(file)s: larger than the limit.") % {"file": path}
            yield str(path), IngestError("too_large", message)
            continue
        yield path.name, path.read_bytes()


def _zip_limit(code: str) -> str:
    if code == "zip_too_many_files":
        return gettext("at most %(count)d files (LEXROOM_ZIP_MAX_FILES)") % {
            "count": settings.LEXROOM_ZIP_MAX_FILES
        }
    if code == "zip_bomb":
        return gettext("at most %(mb)d MB expanded (LEXROOM_ZIP_MAX_TOTAL_MB)") % {
            "mb": settings.LEXROOM_ZIP_MAX_TOTAL_BYTES // (1024 * 1024)
        }
    return ""


def _zip_members(name: str, data: bytes) -> Iterator[tuple[str, bytes | IngestError]]:
    """("archive.zip/member path", bytes or refusal) for each member, nested ZIPs expanded.

    Parsing names the member at the start of its messages; prefixed with the archive's name,
    a refusal reads "deal.zip/contracts/a.exe: …" like the member's label.
    """
    try:
        for member, content in parsing.iter_zip_members(
            data,
            max_members=settings.LEXROOM_ZIP_MAX_FILES,
            max_total_bytes=settings.LEXROOM_ZIP_MAX_TOTAL_BYTES,
        ):
            label = f"{name}/{member}"
            if isinstance(content, parsing.ParseError):
                yield label, IngestError(content.code, f"{name}/{content.message}")
            else:
                yield label, content
    except parsing.ParseError as exc:
        reason = exc.message
        limit = _zip_limit(exc.code)
        if limit:
            reason = gettext("%(reason)s; %(limit)s") % {"reason": reason, "limit": limit}
        message = gettext("%(file)s: %(reason)s") % {"file": name, "reason": reason}
        yield name, IngestError(exc.code, message)


# --- Storing -----------------------------------------------------------------------------


def store_named(
    *, workspace: Workspace, name: str, data: bytes, user: User | None
) -> list[StoreResult]:
    """One file's bytes, by name, to what became of them; the caller sets the tenant scope.

    A ZIP is expanded safely, each member its own result named "deal.zip/contracts/a.pdf" (a
    refused member does not stop the others); a .json is a data room, stored entry by entry;
    anything else is one document.
    """
    if not name.lower().endswith(".zip"):
        return _store_one(workspace=workspace, label=name, data=data, user=user, in_archive=False)
    results: list[StoreResult] = []
    for label, content in _zip_members(name, data):
        if isinstance(content, IngestError):
            results.append(StoreResult(label, code=content.code, error=content.message))
        else:
            results += _store_one(
                workspace=workspace, label=label, data=content, user=user, in_archive=True
            )
    return results


def _store_one(
    *, workspace: Workspace, label: str, data: bytes, user: User | None, in_archive: bool
) -> list[StoreResult]:
    folder, _, filename = label.rpartition("/")
    try:
        if filename.lower().endswith(".json"):
            entries = dataroom_entries(data, name=filename)
            return dataroom_store(workspace=workspace, entries=entries, user=user)
        document, created = document_store(
            workspace=workspace,
            filename=filename,
            data=data,
            user=user,
            source="archive" if in_archive else "upload",
            archive_path=label if in_archive else "",
        )
    except IngestError as exc:
        # Messages start with the file name; inside an archive, with its full label.
        message = f"{folder}/{exc.message}" if folder else exc.message
        return [StoreResult(label, code=exc.code, error=message)]
    return [StoreResult(label, document, created)]


def store_files(
    *, workspace: Workspace, paths: list[Path], user: User | None
) -> tuple[IngestBatch, list[StoreResult]]:
    results: list[StoreResult] = []
    with workspace_scope(workspace):
        for name, content in iter_files(paths):
            if isinstance(content, IngestError):
                results.append(StoreResult(name, code=content.code, error=content.message))
            else:
                results += store_named(workspace=workspace, name=name, data=content, user=user)
        batch = batch_create(
            workspace=workspace, label=", ".join(str(p) for p in paths), results=results, user=user
        )
    return batch, results


def store_uploads(
    *, workspace: Workspace, uploads: list[UploadedFile[Any]], user: User, label: str
) -> tuple[IngestBatch, list[StoreResult]]:
    """Store files uploaded over HTTP (web form or REST) and queue them for processing.

    The same path as the CLI: ZIPs expanded, data-room JSON imported, one result per member or
    entry. The size limit applies to each uploaded file, archives included.
    """
    results: list[StoreResult] = []
    for upload in uploads:
        name = upload.name or "upload"
        if upload.size and upload.size > settings.LEXROOM_MAX_UPLOAD_BYTES:
            limit_mb = settings.LEXROOM_MAX_UPLOAD_BYTES // (1024 * 1024)
            message = gettext("%(file)s: larger than the %(mb)d MB upload limit.")
            results.append(
                StoreResult(name, code="too_large", error=message % {"file": name, "mb": limit_mb})
            )
            continue
        results += store_named(workspace=workspace, name=name, data=upload.read(), user=user)
    batch = batch_create(workspace=workspace, label=label, results=results, user=user)
    queue_batch(workspace=workspace, batch=batch)
    return batch, results


def refusals(results: list[StoreResult]) -> list[dict[str, str]]:
    return [{"file": r.name, "code": r.code, "error": r.error} for r in results if r.error]


def store_dataroom(
    *, workspace: Workspace, path: Path, user: User | None
) -> tuple[IngestBatch, list[StoreResult]]:
    entries = dataroom_entries(path.read_bytes(), name=path.name)
    with workspace_scope(workspace):
        results = dataroom_store(workspace=workspace, entries=entries, user=user)
        batch = batch_create(workspace=workspace, label=str(path), results=results, user=user)
    return batch, results


# --- Running -----------------------------------------------------------------------------


def _to_process(workspace: Workspace, batch: IngestBatch) -> list[int]:
    with workspace_scope(workspace):
        return list(
            Document.objects.filter(pk__in=batch.document_ids)
            .exclude(status__in=FINAL_STATUSES)
            .values_list("pk", flat=True)
            .order_by("pk")
        ) + list(
            # A failed document is retried when it is ingested again (a parser may be fixed).
            Document.objects.filter(pk__in=batch.document_ids, status=DocumentStatus.FAILED)
            .values_list("pk", flat=True)
            .order_by("pk")
        )


def queue_batch(*, workspace: Workspace, batch: IngestBatch) -> int:
    """Queue the batch's documents for the workers; returns how many were queued."""
    pending = _to_process(workspace, batch)
    with workspace_scope(workspace):
        batch_processed_set(batch=batch, processed=len(batch.document_ids) - len(pending))
        for document_id in pending:
            enqueue(
                process_document,
                workspace_id=workspace.pk,
                document_id=document_id,
                batch_id=batch.pk,
            )
        if not pending:
            embed_enqueue(workspace_id=workspace.pk)
    return len(pending)


def run_in_process(
    *,
    workspace: Workspace,
    batch: IngestBatch,
    progress: Progress | None = None,
    embed_later: bool = False,
) -> dict[str, float]:
    """Process, embed and analyse in this process, with per-stage timings.

    The same steps the workers run, each in its own tenant-scoped transaction: the
    documents' steps, resumed where an earlier run left each one, then the workspace's.
    ``embed_later``: the embedding rounds (and the clause types read from the vectors) are
    queued for the worker; the analysis runs here on what was read (full-text search and
    the dashboard work at once) and again in the worker once the chunks are embedded.
    """
    timings: dict[str, float] = {}
    pending = _to_process(workspace, batch)
    started = time.perf_counter()
    for done, document_id in enumerate(pending, start=1):
        with workspace_scope(workspace):
            document_process(workspace_id=workspace.pk, document_id=document_id, resume=True)
        if progress:
            progress("parse", done, len(pending))
    timings["process"] = time.perf_counter() - started

    for step in WORKSPACE_STEPS:
        if embed_later and step.repeat:
            continue
        started = time.perf_counter()
        with workspace_scope(workspace):
            # Only the embedding has a backlog to show; the analysis is one round.
            total = chunks_pending_embedding(workspace_id=workspace.pk) if step.repeat else 0
        done = 0
        while True:
            with workspace_scope(workspace):
                worked = step.run(workspace.pk)
            if not worked:
                break
            done += worked
            if progress:
                progress(step.name, done, total)
            if not step.repeat:
                break
        timings[step.name] = time.perf_counter() - started
    if embed_later:
        embed_enqueue(workspace_id=workspace.pk)
    return timings


def wait_for_batch(
    *,
    workspace: Workspace,
    batch: IngestBatch,
    progress: Progress | None = None,
    poll_seconds: float = 1.0,
    timeout_seconds: float = 24 * 3600,
) -> None:
    """Poll until every document of the batch is embedded or failed, and nothing is left to
    embed in the workspace."""
    deadline = time.monotonic() + timeout_seconds
    while time.monotonic() < deadline:
        with workspace_scope(workspace):
            state = batch_status(batch=batch)
        if progress:
            progress("documents", state.done, state.documents)
        if state.finished:
            return
        time.sleep(poll_seconds)
    raise TimeoutError(gettext("The batch did not finish in time; is the worker running?"))


def batch_report(
    *, workspace: Workspace, batch: IngestBatch, results: list[StoreResult]
) -> BatchReport:
    report = BatchReport(batch_id=batch.pk)
    report.stored = sum(1 for r in results if r.document is not None and r.created)
    report.already_present = sum(1 for r in results if r.document is not None and not r.created)
    report.refused = refusals(results)
    with workspace_scope(workspace):
        state = batch_status(batch=batch)
    report.statuses = dict(state.statuses)
    report.failures = [asdict(failure) for failure in state.failures]
    return report
