"""Turn uploaded bytes into plain text with page offsets, and expand ZIP archives safely.

Pure functions: no models, no settings of ours (the limits come in as `Limits`). Everything
that goes wrong with a file comes out as a `ParseError` with a stable `code`, so the
ingestion pipeline can record it and move on; its message is for people, in the active
language. A limit passed while reading is a `LimitReached` (pages, characters, seconds,
memory); `parse_isolated` reads in a child process killed at its deadline.

Formats are registered, one module each: ``_pdf``, ``_docx``, ``_html``, ``_text`` (txt,
md), ``_dataroom`` (json) and ``_zip``; ``_detect`` sniffs the bytes and checks them
against the extension for every registered format alike. Adding a format is one module
with its parser and one registration line, then its import below::

    # documents/parsing/_odt.py
    def _parse_odt(filename: str, data: bytes, meter: Meter) -> ParsedText:
        ...  # meter.progress(chars=..., pages=...) as each page is read

    register_format(
        Format(name="odt", extensions=(".odt",), label="ODT", content="binary",
               sniff=_is_odt, parse=_parse_odt)
    )

``content="text"`` formats are recognised by decoding (``cp1252=True`` for legacy
Windows exports, ``sniff`` for a further look); ``parse=None`` marks a container (archive,
data room) that is expanded or imported, never parsed as one document.
"""

from __future__ import annotations

# Importing a format module registers it; the order is that of the docs, not significant.
from documents.parsing import _dataroom, _docx, _html, _pdf, _text, _zip  # noqa: F401
from documents.parsing._bounds import LimitReached, Limits, Meter
from documents.parsing._detect import detect_type, parse_document
from documents.parsing._formats import (
    Format,
    ParsedText,
    ParseError,
    is_container,
    join_pages,
    register_format,
    registered_formats,
)
from documents.parsing._isolated import parse_bounded, parse_isolated
from documents.parsing._zip import iter_zip_members

SUPPORTED_EXTENSIONS: frozenset[str] = frozenset(
    extension for fmt in registered_formats() for extension in fmt.extensions
)

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "Format",
    "LimitReached",
    "Limits",
    "Meter",
    "ParseError",
    "ParsedText",
    "detect_type",
    "is_container",
    "iter_zip_members",
    "join_pages",
    "parse_bounded",
    "parse_document",
    "parse_isolated",
    "register_format",
]
