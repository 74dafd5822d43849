"""PDF: the text layer page by page (pypdf); a scan without one needs OCR, not rejection.
The lines repeated atop or below most pages (running headers, footers, page numbers) are
left out of the text (``_running``).

pypdf can spend minutes on one small, hostile page: ingestion runs this parser in a process
of its own that is killed at the deadline (``_isolated``).
"""

from __future__ import annotations

import io
from dataclasses import replace

import pypdf
from django.utils.translation import gettext
from pypdf.errors import DependencyError

from documents.parsing._bounds import Meter
from documents.parsing._formats import (
    Format,
    ParsedText,
    ParseError,
    join_pages,
    normalise,
    register_format,
)
from documents.parsing._running import without_running_lines

_SNIFF_WINDOW = 1024


def _is_pdf(data: bytes) -> bool:
    # Some generators emit a BOM or blank lines before the header; readers accept it within 1 KiB.
    head = data[:_SNIFF_WINDOW]
    head = head.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n\f\x00")
    return head.startswith(b"%PDF-")


def _parse_pdf(filename: str, data: bytes, meter: Meter) -> ParsedText:
    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            try:
                opened = reader.decrypt("")
            except DependencyError as exc:
                message = gettext("%(file)s: the PDF uses an unsupported encryption")
                raise ParseError("encrypted", message % {"file": filename}) from exc
            if opened == pypdf.PasswordType.NOT_DECRYPTED:
                message = gettext("%(file)s: the PDF is password-protected")
                raise ParseError("encrypted", message % {"file": filename})
        # The page count is known before any page is read: a file over the limit costs nothing.
        meter.declare_pages(len(reader.pages))
        pages: list[str] = []
        for page in reader.pages:
            pages.append(normalise(page.extract_text() or ""))
            meter.progress(chars=len(pages[-1]), pages=1)
    # Out of memory is the process's limit, not a broken file (``_isolated`` says which).
    except (ParseError, MemoryError):
        raise
    except Exception as exc:
        # pypdf raises anything from PdfReadError to KeyError or RecursionError on broken
        # input; for the pipeline they all mean the same thing.
        message = gettext("%(file)s: the PDF cannot be read (%(error)s)")
        raise ParseError("corrupt", message % {"file": filename, "error": exc}) from exc
    if not pages:
        raise ParseError("empty", gettext("%(file)s: the PDF has no pages") % {"file": filename})
    empty = tuple(number for number, page in enumerate(pages, start=1) if not page.strip())
    if len(empty) == len(pages):
        # Scanned documents have pages but no text layer: OCR, not rejection.
        return ParsedText(
            text="", page_starts=[0] * len(pages), media_type="pdf", needs_ocr=True,
            empty_pages=empty,
        )  # fmt: skip
    # Running headers and footers go before the pages are joined: they would break articles.
    return replace(join_pages(without_running_lines(pages), "pdf"), empty_pages=empty)


register_format(
    Format(name="pdf", extensions=(".pdf",), label="PDF", content="binary", sniff=_is_pdf,
           parse=_parse_pdf)
)  # fmt: skip
