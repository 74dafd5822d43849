"""Scanned PDFs through OCR (ocrmypdf + Tesseract, French and English), on PDFs made here:
text rendered to an image, the image put in a PDF. Page numbers kept, the original bytes
kept, the OCR'd layer stored beside them, OCR'd text marked with its confidence; a mixed PDF
OCR'd page by page. Skipped without ocrmypdf, required in CI (LEXROOM_REQUIRE_OCR=1)."""

from __future__ import annotations

import hashlib
import io
import os
import shutil

import pytest
from django.core.files.storage import default_storage
from django.test import override_settings
from fpdf import FPDF
from PIL import Image, ImageDraw, ImageFont

from agents.tools import call_tool
from documents.models import Chunk, Document, DocumentStatus
from tests.helpers.contracts import ingest_files
from tests.helpers.rooms import Room
from workspaces.tenancy import workspace_scope

pytestmark = pytest.mark.django_db
if shutil.which("ocrmypdf") is None and os.environ.get("LEXROOM_REQUIRE_OCR") != "1":
    pytestmark = [pytestmark, pytest.mark.skip(reason="ocrmypdf is not installed")]

PAGE_ONE = ["CONTRAT DE BAIL COMMERCIAL", "ARTICLE 1 - OBJET",
            "Le bailleur donne a bail les locaux de Lyon.", "ARTICLE 2 - DUREE",
            "Le bail est conclu pour neuf annees."]  # fmt: skip
PAGE_TWO = ["ARTICLE 3 - LOYER", "Le loyer annuel est de vingt mille euros.",
            "ARTICLE 4 - DROIT APPLICABLE",
            "Le present bail est soumis au droit francais."]  # fmt: skip


def scanned_page(lines: list[str]) -> Image.Image:
    """A page as a scanner gives it: an image of text, no text layer."""
    image = Image.new("L", (1654, 2339), 255)  # A4 at 200 dpi
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=42)
    for row, line in enumerate(lines):
        draw.text((150, 180 + row * 90), line, fill=0, font=font)
    return image


def scanned_pdf(*pages: list[str]) -> bytes:
    images = [scanned_page(lines) for lines in pages]
    buffer = io.BytesIO()
    images[0].save(buffer, "PDF", resolution=200, save_all=True, append_images=images[1:])
    return buffer.getvalue()


def mixed_pdf(tmp_path) -> bytes:
    """Page 1 with a text layer, page 2 a scan."""
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    for line in PAGE_ONE:
        pdf.cell(0, 10, line, new_x="LMARGIN", new_y="NEXT")
    image = tmp_path / "page2.png"
    scanned_page(PAGE_TWO).save(image)
    pdf.add_page()
    pdf.image(str(image), x=0, y=0, w=210)
    return bytes(pdf.output())


def _ingest(room: Room, name: str, data: bytes) -> Document:
    batch = ingest_files(room.workspace, {name: data}, user=room.owner, label=name)
    with workspace_scope(room.workspace):
        return Document.objects.get(pk=batch.document_ids[0])


def _chunks(room: Room, document: Document) -> list[Chunk]:
    with workspace_scope(room.workspace):
        return list(Chunk.objects.filter(document=document).order_by("ordinal"))


def test_a_scanned_pdf_is_read_by_ocr_with_its_pages_and_confidence(room):
    data = scanned_pdf(PAGE_ONE, PAGE_TWO)
    document = _ingest(room, "bail-scanne.pdf", data)
    assert document.status == DocumentStatus.EMBEDDED, document.status_reason
    assert "neuf" in document.text and "vingt mille euros" in document.text
    assert document.ocr["pages"] == [1, 2] and document.ocr["mean_confidence"] > 60
    assert "tesseract" in document.ocr["engine"]
    with default_storage.open(document.original, "rb") as original:
        assert hashlib.sha256(original.read()).hexdigest() == hashlib.sha256(data).hexdigest()
    with default_storage.open(document.ocr["layer"], "rb") as layer:
        assert layer.read().startswith(b"%PDF")
    chunks = _chunks(room, document)
    loyer = next(c for c in chunks if "loyer annuel" in c.text)
    assert loyer.page_start == 2 and loyer.ocr_confidence is not None
    contract = call_tool(
        name="get_contract",
        arguments={"workspace": "deal-alpha", "contract_id": document.ref},
        user=room.viewer,
    ).content
    assert all(a["ocr_confidence"] is not None for a in contract["articles"])


def test_a_mixed_pdf_is_read_by_ocr_only_where_it_has_no_text(room, tmp_path):
    document = _ingest(room, "bail-mixte.pdf", mixed_pdf(tmp_path))
    assert document.status == DocumentStatus.EMBEDDED, document.status_reason
    assert document.ocr["pages"] == [2]
    assert "CONTRAT DE BAIL COMMERCIAL" in document.text  # page 1's own text layer
    chunks = _chunks(room, document)
    first = next(c for c in chunks if "neuf annees" in c.text)
    last = next(c for c in chunks if "droit francais" in c.text)
    assert first.page_start == 1 and first.ocr_confidence is None
    assert last.page_start == 2 and last.ocr_confidence is not None


def test_a_rerun_reads_the_stored_layer_without_ocr_again(room):
    document = _ingest(room, "scan.pdf", scanned_pdf(PAGE_ONE))
    seconds = document.ocr["seconds"]
    from documents.services import document_process

    with override_settings(LEXROOM_OCR=False), workspace_scope(room.workspace):
        document.status = DocumentStatus.STORED
        document.save(update_fields=["status"])
        document_process(workspace_id=room.workspace.pk, document_id=document.pk, resume=True)
        again = Document.objects.get(pk=document.pk)
    assert again.status == DocumentStatus.CHUNKED and "neuf" in again.text
    assert again.ocr["seconds"] == seconds  # the stored layer, not a second OCR


def test_without_ocr_a_scan_fails_with_the_reason_and_is_kept(room):
    with override_settings(LEXROOM_OCR=False):
        document = _ingest(room, "scan.pdf", scanned_pdf(PAGE_ONE))
    assert document.status == DocumentStatus.FAILED and document.needs_ocr
    assert "LEXROOM_OCR" in document.status_reason
    assert default_storage.exists(document.original)


def test_the_viewer_marks_ocr_text_with_its_confidence(room):
    from tests.helpers.rooms import login

    document = _ingest(room, "scan.pdf", scanned_pdf(PAGE_ONE))
    page = login(room.viewer).get(f"/w/deal-alpha/documents/{document.ref}/")
    body = page.content.decode()
    assert page.status_code == 200
    assert "texte issu d'OCR" in body and "ocr-label" in body
