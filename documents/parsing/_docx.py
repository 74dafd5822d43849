"""DOCX: paragraphs and table rows in document order, pages where Word marked breaks."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import docx
from django.utils.translation import gettext
from docx.oxml.ns import qn

from documents.parsing._bounds import Meter
from documents.parsing._formats import (
    Format,
    ParsedText,
    ParseError,
    join_pages,
    normalise,
    register_format,
)
from documents.parsing._zip import is_zip, zip_has_word_document

_W_P, _W_TBL, _W_TR, _W_TC, _W_SDT, _W_SDT_CONTENT = (
    qn("w:p"),
    qn("w:tbl"),
    qn("w:tr"),
    qn("w:tc"),
    qn("w:sdt"),
    qn("w:sdtContent"),
)
_W_T, _W_TAB, _W_BR, _W_CR, _W_TYPE = qn("w:t"), qn("w:tab"), qn("w:br"), qn("w:cr"), qn("w:type")
_W_LAST_RENDERED, _W_PAGE_BREAK_BEFORE = qn("w:lastRenderedPageBreak"), qn("w:pageBreakBefore")
_W_VAL = qn("w:val")
_PAGE_BREAK = "\f"


def _docx_paragraph(paragraph: Any) -> str:
    """Text of one w:p, with "\f" where the paragraph carries a page break."""
    parts: list[str] = []
    for element in paragraph.iter():
        tag = element.tag
        if tag == _W_T:
            parts.append(element.text or "")
        elif tag == _W_TAB:
            parts.append("\t")
        elif tag == _W_BR:
            parts.append(_PAGE_BREAK if element.get(_W_TYPE) == "page" else "\n")
        elif tag == _W_CR:
            parts.append("\n")
        elif tag == _W_LAST_RENDERED or (
            tag == _W_PAGE_BREAK_BEFORE and element.get(_W_VAL) not in ("0", "false")
        ):
            parts.append(_PAGE_BREAK)
    return "".join(parts)


def _docx_blocks(container: Any) -> Iterator[str]:
    """Paragraphs and table rows of a body (or content control) in document order."""
    for child in container.iterchildren():
        if child.tag == _W_P:
            yield _docx_paragraph(child)
        elif child.tag == _W_TBL:
            for row in child.iter(_W_TR):
                cells = [
                    " ".join(_docx_paragraph(p) for p in cell.iter(_W_P)).strip()
                    for cell in row.iterchildren(_W_TC)
                ]
                yield " | ".join(cell for cell in cells if cell)
        elif child.tag == _W_SDT:
            for content in child.iterchildren(_W_SDT_CONTENT):
                yield from _docx_blocks(content)


def _parse_docx(filename: str, data: bytes, meter: Meter) -> ParsedText:
    try:
        body = docx.Document(io.BytesIO(data)).element.body
        blocks: list[str] = []
        for block in _docx_blocks(body):
            blocks.append(block)
            meter.progress(chars=len(block) + 1)
        raw = "\n".join(blocks)
    # Out of memory is the process's limit, not a broken file (``_isolated`` says which).
    except (ParseError, MemoryError):
        raise
    except Exception as exc:
        # python-docx surfaces zipfile, KeyError and lxml errors for damaged packages.
        message = gettext("%(file)s: the DOCX cannot be read (%(error)s)")
        raise ParseError("corrupt", message % {"file": filename, "error": exc}) from exc
    # Word writes both an explicit break and a lastRenderedPageBreak at the same spot, so a
    # page with no text between two breaks is the same break counted twice.
    pages = [normalise(page) for page in raw.split(_PAGE_BREAK)]
    merged = [pages[0]] + [page for page in pages[1:] if page.strip()]
    if not any(page.strip() for page in merged):
        message = gettext("%(file)s: the document contains no text")
        raise ParseError("empty", message % {"file": filename})
    if not merged[0].strip():
        merged = merged[1:]
    # Counted once merged: Word's doubled breaks would count pages twice while reading.
    meter.declare_pages(len(merged))
    return join_pages(merged, "docx")


def _is_docx(data: bytes) -> bool:
    return is_zip(data) and zip_has_word_document(data) is True


def _diagnose(filename: str, data: bytes) -> None:
    if is_zip(data) and zip_has_word_document(data) is None:
        message = gettext("%(file)s: the DOCX archive cannot be read")
        raise ParseError("corrupt", message % {"file": filename})


register_format(
    Format(name="docx", extensions=(".docx",), label="DOCX", content="binary", sniff=_is_docx,
           diagnose=_diagnose, parse=_parse_docx)
)  # fmt: skip
