"""The document's steps: parse, metadata, chunk (declared in order in ``_steps.STEPS``).

Each step takes the document locked by the runner, does its part, saves the document with
the status it reached and returns it. Each can run again on the same input and write the
same rows, so a run stopped in the middle is finished by running from the recorded status.
A refusal (no text, too long) marks the document failed and stops there.
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import translation
from django.utils.formats import number_format
from django.utils.translation import gettext

from core.metrics import timed
from documents import chunking, parsing
from documents.duplicates import minhash_signature, text_fingerprint
from documents.listeners import chunks_indexed, chunks_removing
from documents.models import Chunk, Document, DocumentParty, DocumentStatus
from documents.ocr import OcrError, ocr_pdf, ocr_unavailable
from documents.services._entities import entity_for_party
from documents.services._metadata import (
    apply_metadata,
    filename_title,
    language_of,
    title_read_in_text,
)
from documents.textsearch import chunk_vectors_update

logger = logging.getLogger(__name__)
# Stored as a JSON entry whose "content" is the text: a data room's entries, and court
# decisions saved from the case-law sources (which also declare their sections).
JSON_SOURCES = frozenset({"dataroom", "case_law"})


def document_parse(document: Document) -> Document:
    """Step "parse": the text and its page offsets, or why there is nothing to index."""
    try:
        with timed("parse"):
            parsed = _read_text(document)
        with timed("ocr"):
            parsed = _with_ocr(document, parsed)
    except parsing.LimitReached as exc:
        # Nothing of an earlier run's text stays beside a refusal.
        document.text, document.page_starts = "", []
        return _fail(document, _stopped_reason(exc))
    except parsing.ParseError as exc:
        return _fail(document, exc.message)
    except OcrError as exc:
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
        why = ocr_unavailable()
        return _fail(
            document,
            gettext("Needs OCR: the PDF has no text layer, and OCR is not available here "
                    "(%(why)s).") % {"why": why}
            if parsed.needs_ocr
            else gettext("No text found."),
        )  # fmt: skip
    if len(parsed.text) > settings.LEXROOM_MAX_DOCUMENT_CHARS:
        # The original keeps the text; a row of tens of megabytes would serve no one.
        document.text, document.page_starts = "", []
        return _fail(document, _too_long_reason(len(parsed.text)))
    # Refused here, before any metadata is read, as every refusal of the text: the chunk step
    # cuts the text again (it is cheap and pure) rather than carrying the drafts over.
    with timed("chunk"):
        drafts = _drafts(document, parsed.text, parsed.page_starts)
    if len(drafts) > settings.LEXROOM_MAX_CHUNKS_PER_DOCUMENT:
        message = gettext(
            "Too many passages to index: %(count)s chunks, more than the %(limit)s allowed per "
            "document (setting %(setting)s). The original file is kept."
        )
        return _fail(
            document,
            _limit_reason(message, count=len(drafts), setting="LEXROOM_MAX_CHUNKS_PER_DOCUMENT"),
        )
    return _reached(document, DocumentStatus.PARSED)


def document_metadata_read(document: Document) -> Document:
    """Step "metadata": language, dates, law, amendment, fingerprints, and the parties linked
    to their entities (replacing those of an earlier run)."""
    text = document.text
    with timed("metadata"):
        document.language = language_of(text)
        parties = apply_metadata(document, text)
        document.text_fingerprint = text_fingerprint(text)
        document.minhash = minhash_signature(text)
    with timed("store"):
        DocumentParty.objects.filter(document=document).delete()
        for ordinal, party in enumerate(parties):
            entity, entity_warnings = entity_for_party(document, party.name, party.siren)
            document.warnings = [*document.warnings, *entity_warnings]
            DocumentParty.objects.create(
                workspace=document.workspace,
                document=document,
                entity=entity,
                name_as_written=party.name[:300],
                siren_as_written=party.siren[:40],
                role=party.role[:40],
                defined_term=party.defined_term[:120],
                ordinal=ordinal,
            )
    return _reached(document, DocumentStatus.PARSED)


def document_chunk(document: Document) -> Document:
    """Step "chunk": the chunks (replacing those of an earlier run), findable by full-text at
    once; the document then waits for embedding (or is done, having nothing to embed)."""
    with timed("chunk"):
        drafts = _drafts(document, document.text, document.page_starts)
        party_names = list(
            DocumentParty.objects.filter(document=document)
            .order_by("ordinal")
            .values_list("name_as_written", flat=True)
        )
        # The chunks' context line: the title given, else the file's name (a title line read
        # in the text is already in the first chunk, and would shift every ranking).
        from_file = filename_title(document.filename)
        index_title = from_file if title_read_in_text(document) else document.title or from_file
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
                    title=index_title,
                    parties=party_names,
                    contract_type=document.contract_type,
                ),
                char_start=draft.char_start,
                char_end=draft.char_end,
                page_start=draft.page_start,
                page_end=draft.page_end,
                ocr_confidence=ocr_confidence(document, draft.page_start, draft.page_end),
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
    return _reached(document, DocumentStatus.CHUNKED if drafts else DocumentStatus.EMBEDDED)


def _drafts(document: Document, text: str, page_starts: list[int]) -> list[chunking.ChunkDraft]:
    """The chunks: at the sections a saved decision declares, else at the detected articles."""
    declared = document.raw_metadata.get("sections") if document.source in JSON_SOURCES else None
    sections = (
        [(int(s["start"]), str(s["heading"]), str(s["ref"])) for s in declared]
        if isinstance(declared, list)
        else None
    )
    # A contract without headings is cut at its paragraphs, labelled in its own language
    # ("¶ 2", "§ 2" in French), as its "Article 2" would be written.
    with translation.override(document.language or None):
        label = gettext("¶ %(number)s")
    return chunking.split_into_chunks(
        text,
        page_starts,
        sections=sections,
        paragraph_label=lambda number: label % {"number": number},
    )


def _with_ocr(document: Document, parsed: parsing.ParsedText) -> parsing.ParsedText:
    """The text with its pages without a text layer read by OCR (stored beside the
    original, so a re-run reads the stored layer and does not OCR again)."""
    if parsed.media_type != "pdf" or not parsed.empty_pages:
        return parsed
    layer = document.ocr.get("layer")
    if layer and default_storage.exists(layer):
        with default_storage.open(layer, "rb") as handle:
            stored = _parse_bounded(f"{document.filename}.ocr.pdf", handle.read())
        # Its pages were all OCR'd: one found blank is read, not a scan to OCR again.
        return replace(stored, needs_ocr=False, empty_pages=())
    why = ocr_unavailable()
    if why is not None:
        document.ocr = {"pages_without_text": list(parsed.empty_pages), "not_read": why}
        return parsed
    with default_storage.open(document.original, "rb") as handle:
        original = handle.read()
    pages = [parsed.text[start:end].strip() for start, end in _page_spans(parsed)]
    result = ocr_pdf(original, pages=pages)
    name = f"{document.original}.ocr.pdf"
    if default_storage.exists(name):
        default_storage.delete(name)
    default_storage.save(name, ContentFile(result.layer))
    confidences = list(result.confidence.values())
    document.ocr = {
        "pages": result.ocr_pages,
        "confidence": {str(page): value for page, value in result.confidence.items()},
        "mean_confidence": round(sum(confidences) / len(confidences), 1) if confidences else None,
        "engine": result.engine,
        "layer": name,
        "seconds": result.seconds,
    }
    document.needs_ocr = False
    return parsing.join_pages(result.pages, "pdf")


def _page_spans(parsed: parsing.ParsedText) -> list[tuple[int, int]]:
    starts = parsed.page_starts
    return [(start, (starts[i + 1] if i + 1 < len(starts) else len(parsed.text)))
            for i, start in enumerate(starts)]  # fmt: skip


def ocr_confidence(document: Document, page_start: int, page_end: int) -> float | None:
    """The lowest OCR confidence of the pages ``page_start``..``page_end`` read by OCR."""
    confidence = document.ocr.get("confidence") or {}
    values = [confidence[str(p)] for p in range(page_start, page_end + 1) if str(p) in confidence]
    return min(values) if values else None


def _read_text(document: Document) -> parsing.ParsedText:
    with default_storage.open(document.original, "rb") as handle:
        data = handle.read()
    if document.source in JSON_SOURCES:
        content = str(json.loads(data.decode())["content"])
        text = content.replace("\r\n", "\n")
        return parsing.ParsedText(text=text, page_starts=[0], media_type="txt")
    return _parse_bounded(document.filename, data)


def _parse_bounded(filename: str, data: bytes) -> parsing.ParsedText:
    """The file's text, read within the extraction limits (PDF and DOCX in a child process)."""
    limits = parsing.Limits(
        max_pages=settings.LEXROOM_EXTRACT_MAX_PAGES,
        max_chars=settings.LEXROOM_MAX_DOCUMENT_CHARS,
        seconds=settings.LEXROOM_EXTRACT_SECONDS,
    )
    return parsing.parse_bounded(
        filename, data, limits=limits, memory_mb=settings.LEXROOM_EXTRACT_MEMORY_MB
    )


def _reached(document: Document, status: DocumentStatus) -> Document:
    document.status = status
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


def _too_long_reason(count: int) -> str:
    message = gettext(
        "Too long to index: %(count)s characters, more than the %(limit)s allowed per "
        "document (setting %(setting)s). The original file is kept."
    )
    return _limit_reason(message, count=count, setting="LEXROOM_MAX_DOCUMENT_CHARS")


def _stopped_reason(exc: parsing.LimitReached) -> str:
    """Why reading stopped, naming the limit's setting (the count is how far it had gone)."""
    if exc.limit == "chars":
        return _too_long_reason(exc.count)
    if exc.limit == "pages":
        message = gettext(
            "Too many pages to index: %(count)s pages, more than the %(limit)s allowed per "
            "document (setting %(setting)s). The original file is kept."
        )
        return _limit_reason(message, count=exc.count, setting="LEXROOM_EXTRACT_MAX_PAGES")
    if exc.limit == "seconds":
        message = gettext(
            "Extraction stopped after %(limit)s s (setting %(setting)s): the file takes too "
            "long to read. The original file is kept."
        )
        return _limit_reason(message, count=exc.count, setting="LEXROOM_EXTRACT_SECONDS")
    message = gettext(
        "Extraction stopped: reading the file needs more than %(limit)s MB of memory "
        "(setting %(setting)s). The original file is kept."
    )
    return _limit_reason(message, count=exc.count, setting="LEXROOM_EXTRACT_MEMORY_MB")


def _limit_reason(message: str, *, count: int, setting: str) -> str:
    """A refusal (``message``, already translated) with the count, the limit and its setting."""
    return message % {
        "count": number_format(count, force_grouping=True),
        "limit": number_format(getattr(settings, setting), force_grouping=True),
        "setting": setting,
    }
