"""Which registered format a file is: its extension says what the sender claims, its bytes
say what it is, and both must agree."""

from __future__ import annotations

from pathlib import PurePath

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from documents.parsing._bounds import Limits, Meter
from documents.parsing._formats import (
    Format,
    ParsedText,
    ParseError,
    decode_text,
    format_for,
    format_named,
    registered_formats,
    supported_extensions,
)

# How refusals name content that is no registered binary format.
_CONTENT_LABEL = {"text": _("text"), "binary": _("binary data")}


def _sniff(data: bytes, *, allow_cp1252: bool) -> str:
    """What the bytes are, ignoring the name: a binary format's name, "text" or "binary"."""
    for fmt in registered_formats():
        if fmt.content == "binary" and fmt.sniff is not None and fmt.sniff(data):
            return fmt.name
    return "text" if decode_text(data, allow_cp1252=allow_cp1252) is not None else "binary"


def _label(kind: str) -> str:
    return str(_CONTENT_LABEL[kind] if kind in _CONTENT_LABEL else format_named(kind).label)


def _content_fits(fmt: Format, actual: str, data: bytes) -> bool:
    if fmt.content == "text" and actual == "text":
        return fmt.sniff is None or fmt.sniff(data)
    return actual == fmt.name or actual in fmt.accepts


def detect_type(filename: str, data: bytes) -> str:
    """Return the file's type, the name of its registered format ("pdf", "docx", "zip",
    "txt", "md", "html", "json").

    The extension says what the sender claims, the magic bytes say what it is; both must
    agree, otherwise `ParseError("type_mismatch")`. Unknown extensions are "unsupported",
    zero bytes are "empty".
    """
    fmt = format_for(filename)
    if fmt is None:
        extension = PurePath(filename).suffix.lower()
        message = gettext("%(file)s: unsupported file type %(extension)s; supported: %(supported)s")
        values = {
            "file": filename,
            "extension": extension or gettext("(no extension)"),
            "supported": ", ".join(sorted(supported_extensions())),
        }
        raise ParseError("unsupported", message % values)
    if not data:
        raise ParseError("empty", gettext("%(file)s: the file is empty") % {"file": filename})
    actual = _sniff(data, allow_cp1252=fmt.cp1252)
    if _content_fits(fmt, actual, data):
        return fmt.name
    if fmt.diagnose is not None:
        fmt.diagnose(filename, data)
    message = gettext("%(file)s: extension says %(expected)s but the content is %(actual)s")
    kinds = {"expected": str(fmt.label), "actual": _label(actual)}
    raise ParseError("type_mismatch", message % {"file": filename, **kinds})


def parse_document(filename: str, data: bytes, *, limits: Limits | None = None) -> ParsedText:
    """Extract the text of a PDF, DOCX, HTML, Markdown or plain-text file, page by page.

    Raises `ParseError` for anything unreadable, `LimitReached` (a `ParseError`) as soon as
    the reading passes one of ``limits``; a PDF without a text layer is not an error but
    comes back with `needs_ocr=True` and empty text. In this process: untrusted binary
    formats go through `parse_isolated`.
    """
    fmt = format_named(detect_type(filename, data))
    if fmt.parse is None:
        message = gettext(
            "%(file)s: %(kind)s files are not parsed as documents; use the data-room import / "
            "archive expansion"
        )
        raise ParseError("unsupported", message % {"file": filename, "kind": fmt.label})
    return fmt.parse(filename, data, Meter(filename, limits))
