"""Storing: the original bytes first (uploads, archive members, data-room entries), then batches.

``document_store`` is the only way a document enters a workspace (web, REST, CLI, import);
it keeps the original bytes before anything else can fail.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils.translation import gettext

from documents import parsing
from documents.models import Document, IngestBatch
from workspaces.audit import audit_record
from workspaces.models import User, Workspace

DATAROOM_FIELDS = (
    "filename",
    "title",
    "parties",
    "siren_parties",
    "contract_type",
    "signature_date",
    "end_date",
    "governing_law",
    "content",
)
_REF_PATTERN = re.compile(r"^c(\d+)$")

CONTRACT_ID = re.compile(r"[A-Za-z0-9._-]{1,32}")


class IngestError(ValueError):
    """A file refused before storage; ``code`` is machine-readable, the message is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class StoreResult:
    name: str
    document: Document | None = None
    created: bool = False
    code: str = ""
    error: str = ""


def _next_ref(workspace: Workspace) -> str:
    numbers = [
        int(match.group(1))
        for ref in Document.objects.filter(workspace=workspace).values_list("ref", flat=True)
        if (match := _REF_PATTERN.match(ref))
    ]
    return f"c{max(numbers, default=0) + 1:02d}"


def _storage_name(workspace: Workspace, sha256: str, filename: str) -> str:
    suffix = "".join(c for c in filename.rpartition(".")[2].lower() if c.isalnum())[:8]
    return f"originals/{workspace.pk}/{sha256[:2]}/{sha256}" + (f".{suffix}" if suffix else "")


def _checked_type(filename: str, data: bytes, media_type: str | None) -> str:
    """The document's type, or the IngestError that refuses it before anything is stored."""
    if not data:
        raise IngestError("empty", gettext("%(file)s: the file is empty.") % {"file": filename})
    if len(data) > settings.LEXROOM_MAX_UPLOAD_BYTES:
        limit_mb = settings.LEXROOM_MAX_UPLOAD_BYTES // (1024 * 1024)
        message = gettext("%(file)s: larger than the %(mb)d MB limit.")
        raise IngestError("too_large", message % {"file": filename, "mb": limit_mb})
    if media_type is None:
        try:
            media_type = parsing.detect_type(filename, data)
        except parsing.ParseError as exc:
            raise IngestError(exc.code, exc.message) from exc
        if parsing.is_container(media_type):
            message = gettext(
                "%(file)s: a %(kind)s file is a container; ingest it as an archive or import it "
                "as a data room."
            )
            raise IngestError(
                "unsupported", message % {"file": filename, "kind": media_type.upper()}
            )
    return media_type


@transaction.atomic
def document_store(
    *,
    workspace: Workspace,
    filename: str,
    data: bytes,
    user: User | None,
    source: str = "upload",
    archive_path: str = "",
    raw_metadata: dict[str, Any] | None = None,
    media_type: str | None = None,
    ref: str | None = None,
) -> tuple[Document, bool]:
    """Store the original bytes and create the document. Idempotent on the bytes' sha256.

    Raises :class:`IngestError` (nothing stored) for an empty, oversized or mistyped file.
    """
    media_type = _checked_type(filename, data, media_type)
    sha256 = hashlib.sha256(data).hexdigest()
    # Serialise reference allocation per workspace (the Workspace row is the lock).
    Workspace.objects.select_for_update().filter(pk=workspace.pk).first()
    existing = Document.objects.filter(workspace=workspace, sha256=sha256).first()
    if existing is not None:
        if filename != existing.filename and filename not in existing.other_filenames:
            existing.other_filenames = [*existing.other_filenames, filename]
            existing.save(update_fields=["other_filenames", "updated_at"])
        return existing, False
    if ref and Document.objects.filter(workspace=workspace, ref=ref).exists():
        message = gettext("%(file)s: reference %(ref)s is already used.")
        raise IngestError("duplicate_ref", message % {"file": filename, "ref": ref})
    name = _storage_name(workspace, sha256, filename)
    if not default_storage.exists(name):
        default_storage.save(name, ContentFile(data))
    metadata = raw_metadata or {}
    document = Document.objects.create(
        workspace=workspace,
        ref=ref or _next_ref(workspace),
        title=str(metadata.get("title") or "")[:500],
        filename=filename[:500],
        source=source,
        archive_path=archive_path[:1000],
        media_type=media_type,
        sha256=sha256,
        size_bytes=len(data),
        original=name,
        raw_metadata=metadata,
        created_by=user,
    )
    audit_record(
        firm=workspace.firm,
        workspace=workspace,
        actor=user,
        actor_label="" if user else "system:ingest",
        action="document.store",
        target=f"{document.ref} {filename}",
        details={"sha256": sha256, "size": len(data), "source": source},
    )
    return document, True


def dataroom_entries(payload: bytes, *, name: str) -> list[dict[str, Any]]:
    """Validate a data-room JSON (list of objects with the reference tool's fields)."""
    try:
        entries = json.loads(payload.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        message = gettext("%(file)s: not valid JSON (%(error)s).")
        raise IngestError("not_dataroom", message % {"file": name, "error": exc}) from exc
    except RecursionError:
        message = gettext("%(file)s: JSON nested too deeply.")
        raise IngestError("not_dataroom", message % {"file": name}) from None
    if not isinstance(entries, list) or not entries:
        message = gettext("%(file)s: a data room is a non-empty JSON list.")
        raise IngestError("not_dataroom", message % {"file": name})
    for position, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict):
            message = gettext("%(file)s: entry %(position)d is not an object.")
            raise IngestError("not_dataroom", message % {"file": name, "position": position})
        missing = [field for field in ("filename", "content") if not entry.get(field)]
        if missing:
            message = gettext(
                "%(file)s: entry %(position)d lacks %(missing)s (expected fields: %(fields)s)."
            )
            raise IngestError(
                "not_dataroom",
                message
                % {
                    "file": name,
                    "position": position,
                    "missing": ", ".join(missing),
                    "fields": ", ".join(DATAROOM_FIELDS),
                },
            )
        if not isinstance(entry["content"], str):
            message = gettext("%(file)s: the content of entry %(position)d is not text.")
            raise IngestError("not_dataroom", message % {"file": name, "position": position})
    return entries


def dataroom_store(
    *, workspace: Workspace, entries: list[dict[str, Any]], user: User | None
) -> list[StoreResult]:
    """Store each data-room entry as a document; refs c01, c02… in file order unless given."""
    results = []
    for position, entry in enumerate(entries, start=1):
        name = str(entry["filename"])
        # The entry is the unit: its bytes are its canonical JSON, so a re-import is a no-op
        # while a re-upload under another name (same content) stays a separate document.
        data = json.dumps(entry, ensure_ascii=False, sort_keys=True).encode()
        ref = str(entry.get("id") or entry.get("contract_id") or f"c{position:02d}")
        if not CONTRACT_ID.fullmatch(ref):
            # It becomes a URL segment and a 32-character column: refused, never truncated.
            message = gettext(
                "%(file)s: the contract id %(id)s is not usable (1 to 32 letters, digits, "
                "'.', '_' or '-')."
            )
            error = message % {"file": name, "id": json.dumps(ref[:80], ensure_ascii=False)}
            results.append(StoreResult(name, code="bad_contract_id", error=error))
            continue
        try:
            document, created = document_store(
                workspace=workspace,
                filename=name,
                data=data,
                user=user,
                source="dataroom",
                raw_metadata={k: entry.get(k) for k in DATAROOM_FIELDS if k != "content"},
                media_type="txt",
                ref=ref,
            )
        except IngestError as exc:
            results.append(StoreResult(name, code=exc.code, error=exc.message))
            continue
        results.append(StoreResult(name, document, created))
    return results


def batch_create(
    *, workspace: Workspace, label: str, results: Iterable[StoreResult], user: User | None
) -> IngestBatch:
    results = list(results)
    return IngestBatch.objects.create(
        workspace=workspace,
        label=label[:500],
        document_ids=[r.document.pk for r in results if r.document is not None],
        errors=[{"file": r.name, "code": r.code, "error": r.error} for r in results if r.error],
        files=[
            {"file": r.name, "document_id": r.document.pk, "created": r.created}
            for r in results
            if r.document is not None
        ],
        created_by=user,
    )


def batch_processed_set(*, batch: IngestBatch, processed: int) -> None:
    """Record how many of the batch's documents need no processing (already final) as it is
    queued; the caller sets the tenant scope."""
    IngestBatch.objects.filter(pk=batch.pk).update(processed=processed)


def batch_processed_increment(*, workspace_id: int, batch_id: int) -> bool:
    """Count one more processed document of the batch, in the caller's transaction; True
    when it was the batch's last. The row is locked: workers finishing at once count one
    after the other."""
    batch = IngestBatch.objects.select_for_update().get(pk=batch_id, workspace_id=workspace_id)
    batch.processed += 1
    batch.save(update_fields=["processed"])
    return batch.processed >= len(batch.document_ids)
