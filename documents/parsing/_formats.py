"""The format registry and what every parser shares: errors, results, text clean-up."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Literal

from django.utils.functional import Promise
from django.utils.translation import gettext

if TYPE_CHECKING:
    from documents.parsing._bounds import Meter


class ParseError(Exception):
    """A file that cannot be turned into text; `code` is stable, `message` is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class ParsedText:
    text: str
    page_starts: list[int]
    media_type: str
    needs_ocr: bool = False
    # PDF pages (from 1) with no text layer: every page of a scan, some of a mixed PDF.
    empty_pages: tuple[int, ...] = ()


@dataclass(frozen=True)
class Format:
    """A file format: how to recognise it and how to read it."""

    name: str  # the type detect_type returns and documents store ("pdf", "docx", …)
    extensions: tuple[str, ...]  # lower case, with the dot
    label: str | Promise  # how refusals name it ("PDF", "text")
    content: Literal["binary", "text"]
    # Binary: do the bytes carry the format's signature? Text: a further look at bytes that
    # decode (JSON's opening bracket).
    sniff: Callable[[bytes], bool] | None = None
    cp1252: bool = False  # text: old Windows exports decode as cp1252 too
    accepts: tuple[str, ...] = ()  # other formats whose content passes for this one
    # Raises the precise ParseError when the content is this format but broken (a DOCX
    # whose archive cannot be read), before a type mismatch is reported.
    diagnose: Callable[[str, bytes], None] | None = None
    # None for containers (archives, data rooms): expanded or imported, never parsed. The
    # parser reports each page (or block) it reads to the meter, which stops it at a limit.
    parse: Callable[[str, bytes, Meter], ParsedText] | None = None


_FORMATS: dict[str, Format] = {}
_BY_EXTENSION: dict[str, Format] = {}


def register_format(fmt: Format) -> Format:
    """Make ``fmt`` known to detection and parsing; an extension belongs to one format."""
    for extension in fmt.extensions:
        owner = _BY_EXTENSION.get(extension)
        if owner is not None and owner.name != fmt.name:
            raise ValueError(f"{extension} is already the {owner.name} format's")
    _FORMATS[fmt.name] = fmt
    _BY_EXTENSION.update(dict.fromkeys(fmt.extensions, fmt))
    return fmt


def registered_formats() -> tuple[Format, ...]:
    return tuple(_FORMATS.values())


def format_named(name: str) -> Format:
    return _FORMATS[name]


def is_container(name: str) -> bool:
    """Is the format ``name`` an archive or a data room (expanded or imported, not parsed)?"""
    return _FORMATS[name].parse is None


def format_for(filename: str) -> Format | None:
    return _BY_EXTENSION.get(PurePath(filename).suffix.lower())


def supported_extensions() -> frozenset[str]:
    return frozenset(_BY_EXTENSION)


def decode_text(data: bytes, *, allow_cp1252: bool) -> str | None:
    """UTF-8 (BOM tolerated), optionally cp1252 for legacy Windows text; None if neither fits."""
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    if allow_cp1252:
        try:
            return data.decode("cp1252")
        except UnicodeDecodeError:
            return None
    return None


def decoded(filename: str, data: bytes, fmt: Format) -> str:
    """The text of a text format's bytes (detection already proved that they decode)."""
    text = decode_text(data, allow_cp1252=fmt.cp1252)
    if text is None:  # pragma: no cover - detect_type already proved it decodes
        message = gettext("%(file)s: the text cannot be decoded")
        raise ParseError("corrupt", message % {"file": filename})
    return text


_BLANK_RUN_RE = re.compile(r"\n(?:[ \t]*\n)+")
HORIZONTAL_SPACE_RE = re.compile(r"[ \t\r\f\v\u00a0]+")


def normalise(text: str) -> str:
    """Unix newlines, no NULs, no trailing spaces, at most one blank line in a row."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANK_RUN_RE.sub("\n\n", text).strip("\n")


def join_pages(pages: list[str], media_type: str) -> ParsedText:
    starts: list[int] = []
    offset = 0
    for page in pages:
        starts.append(offset)
        offset += len(page) + 2  # the "\n\n" separator
    return ParsedText(text="\n\n".join(pages), page_starts=starts, media_type=media_type)
