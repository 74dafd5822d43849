"""Ingestion: store the original, then parse, chunk, read metadata, embed — small steps.

``document_store`` is the only way a document enters a workspace (web, REST, CLI, import);
it keeps the original bytes before anything else can fail. The later steps are idempotent
and run in tasks (or in-process from the CLI when no worker is running).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.db.models import Count, Exists, OuterRef, Q
from django.utils.formats import number_format
from django.utils.translation import gettext

from documents import chunking, extraction, parsing
from documents.duplicates import minhash_signature, text_fingerprint
from documents.embeddings import get_encoder, vector_index_ensure
from documents.listeners import chunks_indexed, chunks_removing
from documents.metrics import timed
from documents.models import (
    Chunk,
    Document,
    DocumentParty,
    DocumentStatus,
    Entity,
    IngestBatch,
)
from documents.normalize import iso_date
from documents.textsearch import chunk_vectors_update
from workspaces.models import AuditEvent, User, Workspace
from workspaces.services import audit_record
from workspaces.tenancy import workspace_scope

logger = logging.getLogger(__name__)

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


# --- Storing -------------------------------------------------------------------------------


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
        if media_type in {"zip", "json"}:
            message = gettext(
                "%(file)s: a %(kind)s file is a container; ingest it as an archive or import it "
                "as a data room."
            )
            raise IngestError(
                "unsupported", message % {"file": filename, "kind": media_type.upper()}
            )
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
        created_by=user,
    )


# --- Processing: parse, metadata, chunks -------------------------------------------------


def _read_text(document: Document) -> parsing.ParsedText:
    with default_storage.open(document.original, "rb") as handle:
        data = handle.read()
    if document.source == "dataroom":
        content = str(json.loads(data.decode())["content"])
        text = content.replace("\r\n", "\n")
        return parsing.ParsedText(text=text, page_starts=[0], media_type="txt")
    return parsing.parse_document(document.filename, data)


_FRENCH_MARKERS = re.compile(r"\b(le|la|les|des|du|et|est|pour|dans|contrat|présent)\b", re.I)
_ENGLISH_MARKERS = re.compile(r"\b(the|and|of|shall|this|agreement|with|for)\b", re.I)


def _language(text: str) -> str:
    sample = text[:20000]
    french = len(_FRENCH_MARKERS.findall(sample))
    english = len(_ENGLISH_MARKERS.findall(sample))
    if not french and not english:
        return ""
    return "fr" if french >= english else "en"


def _apply_metadata(document: Document, text: str) -> list[tuple[str, str]]:
    """Normalise metadata and compare it with the text. Returns the parties (name, siren)."""
    meta = document.raw_metadata
    warnings: list[str] = []
    document.title = document.title or str(meta.get("title") or "")
    document.contract_type = extraction.normalize_contract_type(meta.get("contract_type")) or ""
    document.signature_date = extraction.parse_date(_as_str(meta.get("signature_date")))
    if meta.get("signature_date") and document.signature_date is None:
        message = gettext("Unreadable signature date: %(value)r.")
        warnings.append(message % {"value": meta.get("signature_date")})

    metadata_end = extraction.parse_date(_as_str(meta.get("end_date")))
    if meta.get("end_date") and metadata_end is None:
        warnings.append(
            gettext("Unreadable end date: %(value)r.") % {"value": meta.get("end_date")}
        )
    text_end = extraction.derive_end_date(text, document.signature_date)
    if metadata_end is not None:
        document.end_date, document.end_date_source = metadata_end, "metadata"
    elif text_end is not None:
        document.end_date, document.end_date_source = text_end.value, "text"
    else:
        document.end_date, document.end_date_source = None, ""

    metadata_law = extraction.normalize_governing_law(_as_str(meta.get("governing_law")))
    text_law = extraction.governing_law_from_text(text)
    if metadata_law:
        document.governing_law, document.governing_law_source = metadata_law, "metadata"
    elif text_law is not None:
        document.governing_law, document.governing_law_source = str(text_law.value), "text"
    else:
        document.governing_law, document.governing_law_source = "", ""

    warnings += extraction.find_contradictions(
        metadata_end=metadata_end,
        text_end=text_end,
        metadata_law=metadata_law,
        text_law=text_law,
        metadata_signature=document.signature_date,
    )
    amendment = extraction.detect_amendment(
        title=document.title, contract_type=document.contract_type, text=text
    )
    document.is_amendment = amendment is not None
    document.amendment_number = amendment.number if amendment else None
    document.amendment_hints = (
        {
            "parent_title_hint": amendment.parent_title_hint,
            "parent_date_hint": iso_date(amendment.parent_date_hint),
            "new_end_date": iso_date(amendment.new_end_date.value)
            if amendment.new_end_date
            else None,
            "new_end_evidence": amendment.new_end_date.evidence if amendment.new_end_date else "",
        }
        if amendment
        else {}
    )
    document.amounts = [
        {"value": str(a.value), "currency": a.currency, "evidence": a.evidence}
        for a in extraction.extract_amounts(text)
    ]
    names = meta.get("parties") or extraction.extract_parties_from_text(text)
    sirens = meta.get("siren_parties") or []
    parties = [
        (str(name), str(sirens[i]) if i < len(sirens) and sirens[i] else "")
        for i, name in enumerate(names)
        if name and str(name).strip()
    ]
    document.warnings = warnings
    return parties


_FILENAME_WORD = re.compile(r"[^\W\d_]{3,}")


def _filename_title(filename: str) -> str:
    """Words of a file name ("bail_commercial_lyon.pdf" → "bail commercial lyon"), or "" when
    it is an opaque id ("a5a68dbd19.txt"): as an index prefix an id would only add noise."""
    stem = filename.rsplit(".", 1)[0]
    words = _FILENAME_WORD.findall(stem)
    return " ".join(words) if len(words) >= 2 else ""


def _as_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _entity_for(document: Document, name: str, siren_written: str) -> tuple[Entity, list[str]]:
    """Find or create the party's entity (following admin merges); SIREN checked by Luhn."""
    warnings = []
    key = extraction.entity_key(name) or name.strip().lower()
    display = extraction.display_name(name)
    # An admin split wins over the automatic key, so re-processing does not undo it.
    split = Entity.objects.filter(
        workspace=document.workspace, key__startswith=f"{key}#split", name=display
    ).first()
    entity = (
        split
        or Entity.objects.get_or_create(
            workspace=document.workspace, key=key, defaults={"name": display}
        )[0]
    )
    while entity.merged_into_id is not None:
        entity = entity.merged_into  # type: ignore[assignment]
    changed = False
    if display != entity.name and display not in entity.aliases:
        entity.aliases = [*entity.aliases, display]
        changed = True
    siren = extraction.normalize_siren(siren_written)
    if siren_written and siren is None:
        message = gettext("Unreadable SIREN for %(party)s: %(value)r.")
        warnings.append(message % {"party": display, "value": siren_written})
    elif siren:
        valid = extraction.siren_is_valid(siren)
        if not valid:
            message = gettext("SIREN %(siren)s of %(party)s is invalid (Luhn check digit).")
            warnings.append(message % {"siren": siren, "party": display})
        if not entity.siren:
            entity.siren, entity.siren_valid, changed = siren, valid, True
        elif entity.siren != siren:
            message = gettext(
                "SIREN %(siren)s of %(party)s differs from the one already known (%(known)s)."
            )
            warnings.append(message % {"siren": siren, "party": display, "known": entity.siren})
    if changed:
        entity.save()
    return entity, warnings


@transaction.atomic
def document_process(*, workspace_id: int, document_id: int) -> Document:
    """Parse, read metadata and parties, chunk. Idempotent; a failure is recorded, not raised."""
    document = Document.objects.select_for_update().get(workspace_id=workspace_id, pk=document_id)
    try:
        with timed("parse"):
            parsed = _read_text(document)
    except parsing.ParseError as exc:
        return _fail(document, exc.message)
    except Exception as exc:  # a parser bug must fail this document, not the batch
        logger.exception("Parsing %s failed", document)
        message = gettext("Unexpected parsing error: %(error)s: %(detail)s")
        return _fail(document, message % {"error": exc.__class__.__name__, "detail": exc})
    document.text = parsed.text
    document.page_starts = parsed.page_starts
    document.media_type = document.media_type or parsed.media_type
    if parsed.needs_ocr or not parsed.text.strip():
        document.needs_ocr = parsed.needs_ocr
        return _fail(
            document,
            gettext("Needs OCR: the PDF has no text layer.")
            if parsed.needs_ocr
            else gettext("No text found."),
        )
    if len(parsed.text) > settings.LEXROOM_MAX_DOCUMENT_CHARS:
        # The original keeps the text; a row of tens of megabytes would serve no one.
        document.text, document.page_starts = "", []
        message = gettext(
            "Too long to index: %(count)s characters, more than the %(limit)s allowed per "
            "document (setting %(setting)s). The original file is kept."
        )
        return _fail(
            document,
            _limit_reason(message, count=len(parsed.text), setting="LEXROOM_MAX_DOCUMENT_CHARS"),
        )
    with timed("chunk"):
        drafts = chunking.split_into_chunks(parsed.text, parsed.page_starts)
    if len(drafts) > settings.LEXROOM_MAX_CHUNKS_PER_DOCUMENT:
        message = gettext(
            "Too many passages to index: %(count)s chunks, more than the %(limit)s allowed per "
            "document (setting %(setting)s). The original file is kept."
        )
        return _fail(
            document,
            _limit_reason(message, count=len(drafts), setting="LEXROOM_MAX_CHUNKS_PER_DOCUMENT"),
        )
    document.status = DocumentStatus.PARSED
    with timed("metadata"):
        document.language = _language(parsed.text)
        parties = _apply_metadata(document, parsed.text)
        document.text_fingerprint = text_fingerprint(parsed.text)
        document.minhash = minhash_signature(parsed.text)

    with timed("store"):
        DocumentParty.objects.filter(document=document).delete()
        for ordinal, (name, siren) in enumerate(parties):
            entity, entity_warnings = _entity_for(document, name, siren)
            document.warnings = [*document.warnings, *entity_warnings]
            DocumentParty.objects.create(
                workspace=document.workspace,
                document=document,
                entity=entity,
                name_as_written=name[:300],
                siren_as_written=siren[:40],
                ordinal=ordinal,
            )

    with timed("chunk"):
        party_names = [name for name, _ in parties]
        chunks = [
            Chunk(
                workspace=document.workspace,
                document=document,
                ordinal=draft.ordinal,
                kind=draft.kind,
                heading=draft.heading[:500],
                article_ref=draft.article_ref[:40],
                text=draft.text,
                index_text=chunking.index_text(
                    draft,
                    title=document.title or _filename_title(document.filename),
                    parties=party_names,
                    contract_type=document.contract_type,
                ),
                char_start=draft.char_start,
                char_end=draft.char_end,
                page_start=draft.page_start,
                page_end=draft.page_end,
            )
            for draft in drafts
        ]
    with timed("store"):
        _chunks_delete(document)
        Chunk.objects.bulk_create(chunks)
    with timed("index"):
        chunk_vectors_update(
            (
                chunk.pk,
                document.language,
                f"{chunk.index_text[: -len(chunk.text)]}\n{chunk.heading}",
                chunk.text,
            )
            for chunk in chunks
        )
        # Findable by full-text now, not once the whole workspace is embedded.
        chunks_indexed(workspace_id=document.workspace_id, document_id=document.pk)
    document.effective_end_date = document.end_date
    document.status = DocumentStatus.CHUNKED if drafts else DocumentStatus.EMBEDDED
    document.status_reason = ""
    with timed("store"):
        document.save()
    return document


def _fail(document: Document, reason: str) -> Document:
    """Mark the document failed. Chunks of an earlier run go: they would still be embedded
    and searched; the original stays, so nothing stored is lost."""
    _chunks_delete(document)
    document.status = DocumentStatus.FAILED
    document.status_reason = reason
    document.save()
    return document


def _chunks_delete(document: Document) -> None:
    """Delete the document's chunks, telling listeners first (while they can still read them)."""
    chunks = Chunk.objects.filter(document=document)
    if chunks.exists():
        chunks_removing(workspace_id=document.workspace_id, document_id=document.pk)
        chunks.delete()


def _limit_reason(message: str, *, count: int, setting: str) -> str:
    """A refusal (``message``, already translated) with the count, the limit and its setting."""
    return message % {
        "count": number_format(count, force_grouping=True),
        "limit": number_format(getattr(settings, setting), force_grouping=True),
        "setting": setting,
    }


# --- Embedding ---------------------------------------------------------------------------

# Chunks a document takes per turn of an embedding batch: most contracts have fewer, so they
# are embedded whole in one batch, whatever is queued before them (CUAD: 39 on average).
FAIR_SHARE_CHUNKS = 64


def _needs_embedding(model_name: str) -> Q:
    """A chunk without a vector, or with one from another model."""
    return Q(embedding__isnull=True) | ~Q(embedding_model=model_name)


def chunks_pending_embedding(*, workspace_id: int) -> int:
    return (
        Chunk.objects.filter(workspace_id=workspace_id)
        .filter(_needs_embedding(settings.LEXROOM_EMBEDDING_MODEL))
        .count()
    )


def chunks_embed_pending(*, workspace_id: int, limit: int = 256, share: int | None = None) -> int:
    """Embed up to ``limit`` chunks whose vector is missing or from another model.

    Fair across documents: each document with chunks pending takes turns of up to ``share``
    chunks (the one with the fewest left first), so a small contract queued behind a huge
    one is embedded in the next batch, not after it. ``FOR UPDATE SKIP LOCKED`` lets several
    workers share the backlog without overlap. Returns how many were embedded (0 when
    nothing is left).
    """
    encoder = get_encoder()
    with transaction.atomic():
        pending = dict(
            Chunk.objects.filter(workspace_id=workspace_id)
            .filter(_needs_embedding(encoder.name))
            .values("document_id")
            .annotate(chunks=Count("id"))
            .values_list("document_id", "chunks")
            .order_by()
        )
        shares = _fair_shares(pending, limit=limit, share=share or FAIR_SHARE_CHUNKS)
        if not shares:
            return 0
        with connection.cursor() as cursor:
            # Each document's first pending chunks, locked; rows another worker holds are
            # skipped, and that worker's next ones are taken instead.
            cursor.execute(
                "SELECT c.id, c.document_id, c.index_text"
                " FROM unnest(%s::bigint[], %s::int[]) AS share(document_id, quota)"
                " CROSS JOIN LATERAL ("
                "  SELECT id, document_id, index_text FROM documents_chunk"
                "  WHERE document_id = share.document_id"
                "   AND (embedding IS NULL OR embedding_model <> %s)"
                "  ORDER BY ordinal LIMIT share.quota FOR UPDATE SKIP LOCKED"
                " ) c",
                [list(shares), list(shares.values()), encoder.name],
            )
            chunks: list[tuple[int, int, str]] = cursor.fetchall()
        if not chunks:
            return 0
        with timed("embed"):
            vectors = encoder.encode([text for _, _, text in chunks])
        with timed("store"), connection.cursor() as cursor:
            # One statement per batch (not one per chunk): the vectors travel as text arrays.
            cursor.execute(
                "UPDATE documents_chunk AS c SET embedding = v.embedding::vector,"
                " embedding_model = %s, embedding_dim = %s"
                " FROM unnest(%s::bigint[], %s::text[]) AS v(id, embedding) WHERE c.id = v.id",
                [
                    encoder.name,
                    encoder.dimension,
                    [chunk_id for chunk_id, _, _ in chunks],
                    ["[" + ",".join(f"{x:.6f}" for x in vector) + "]" for vector in vectors],
                ],
            )
        vector_index_ensure(encoder.dimension)
        _mark_embedded({document_id for _, document_id, _ in chunks}, encoder.name)
    return len(chunks)


def _fair_shares(pending: dict[int, int], *, limit: int, share: int) -> dict[int, int]:
    """Chunks each document gets in a batch of ``limit``, from its chunks ``pending``: turns of
    up to ``share`` per document, the document with the fewest left first in each turn."""
    order = sorted(pending, key=lambda document_id: (pending[document_id], document_id))
    shares = dict.fromkeys(order, 0)
    left = min(limit, sum(pending.values()))
    while left > 0:
        for document_id in order:
            taken = min(share, pending[document_id] - shares[document_id], left)
            shares[document_id] += taken
            left -= taken
            if not left:
                break
    return {document_id: count for document_id, count in shares.items() if count}


def _mark_embedded(document_ids: set[int], model_name: str) -> None:
    pending = Chunk.objects.filter(document=OuterRef("pk")).filter(_needs_embedding(model_name))
    Document.objects.filter(pk__in=document_ids, status=DocumentStatus.CHUNKED).exclude(
        Exists(pending)
    ).update(status=DocumentStatus.EMBEDDED)


# --- Entities (admin) ----------------------------------------------------------------------


@transaction.atomic
def entity_merge(*, target: Entity, others: list[Entity], actor: User) -> Entity:
    """Fold ``others`` into ``target``: parties repointed, names kept as aliases."""
    for other in others:
        if other.pk == target.pk or other.workspace_id != target.workspace_id:
            continue
        DocumentParty.objects.filter(entity=other).update(entity=target)
        target.aliases = sorted({*target.aliases, other.name, *other.aliases} - {target.name})
        if not target.siren and other.siren:
            target.siren, target.siren_valid = other.siren, other.siren_valid
        other.merged_into = target
        other.save(update_fields=["merged_into"])
        audit_record(
            firm=target.workspace.firm,
            workspace=target.workspace,
            actor=actor,
            action="entity.merge",
            target=f"{other.name} -> {target.name}",
        )
    target.save()
    return target


@transaction.atomic
def entity_split_alias(*, entity: Entity, alias: str, actor: User) -> Entity:
    """Give ``alias`` its own entity again, with the parties written that way."""
    key = f"{extraction.entity_key(alias)}#split{entity.pk}"
    new_entity, _ = Entity.objects.get_or_create(
        workspace=entity.workspace, key=key, defaults={"name": alias}
    )
    parties = DocumentParty.objects.filter(entity=entity)
    moved = [p.pk for p in parties if extraction.display_name(p.name_as_written) == alias]
    DocumentParty.objects.filter(pk__in=moved).update(entity=new_entity)
    entity.aliases = [a for a in entity.aliases if a != alias]
    entity.save(update_fields=["aliases"])
    audit_record(
        firm=entity.workspace.firm,
        workspace=entity.workspace,
        actor=actor,
        action="entity.split",
        target=f"{alias} <- {entity.name}",
        details={"parties_moved": len(moved)},
    )
    return new_entity


# --- Throwaway workspaces (benchmarks, evaluations, tests) ----------------------------------


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
