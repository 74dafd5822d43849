"""Turn uploaded bytes into plain text with page offsets, and expand ZIP archives safely.

Pure functions: no models, no settings. Everything that goes wrong with a file comes out as a
`ParseError` with a stable `code`, so the ingestion pipeline can record it and move on; its
message is for people, in the active language.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import PurePath
from typing import Any

import docx
import pypdf
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from docx.oxml.ns import qn
from pypdf.errors import DependencyError


class ParseError(Exception):
    """A file that cannot be turned into text; `code` is stable, `message` is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


SUPPORTED_EXTENSIONS: frozenset[str] = frozenset(
    {".pdf", ".docx", ".txt", ".md", ".html", ".htm", ".zip", ".json"}
)


@dataclass(frozen=True)
class ParsedText:
    text: str
    page_starts: list[int]
    media_type: str
    needs_ocr: bool = False


_EXPECTED_KIND = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".zip": "zip",
    ".txt": "txt",
    ".md": "md",
    ".html": "html",
    ".htm": "html",
    ".json": "json",
}
_KIND_LABEL = {
    "pdf": "PDF",
    "docx": "DOCX",
    "zip": "ZIP",
    "txt": _("text"),
    "md": "Markdown",
    "html": "HTML",
    "json": "JSON",
    "text": _("text"),
    "binary": _("binary data"),
}
_TEXT_KINDS = frozenset({"txt", "md", "html", "json"})
# Old Windows exports are cp1252; JSON is UTF-8 by definition (RFC 8259).
_LEGACY_TEXT_KINDS = frozenset({"txt", "md", "html"})
_SNIFF_WINDOW = 1024


def _supported_list() -> str:
    return ", ".join(sorted(SUPPORTED_EXTENSIONS))


def _decode_text(data: bytes, *, allow_cp1252: bool) -> str | None:
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


def _is_pdf(data: bytes) -> bool:
    # Some generators emit a BOM or blank lines before the header; readers accept it within 1 KiB.
    head = data[:_SNIFF_WINDOW]
    head = head.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n\f\x00")
    return head.startswith(b"%PDF-")


def _is_zip(data: bytes) -> bool:
    return data.startswith((b"PK\x03\x04", b"PK\x05\x06"))


def _zip_has_word_document(data: bytes) -> bool | None:
    """True/False for a readable ZIP, None if the central directory cannot be read."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return "word/document.xml" in archive.namelist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return None


def _looks_like_json(data: bytes) -> bool:
    # Only the opening bracket: full validation belongs to the data-room import.
    return data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith((b"{", b"["))


def _sniff(data: bytes, *, allow_cp1252: bool) -> str:
    """What the bytes are, ignoring the name: pdf, docx, zip, text or binary."""
    if _is_pdf(data):
        return "pdf"
    if _is_zip(data):
        return "docx" if _zip_has_word_document(data) else "zip"
    return "text" if _decode_text(data, allow_cp1252=allow_cp1252) is not None else "binary"


def detect_type(filename: str, data: bytes) -> str:
    """Return the file's type ("pdf", "docx", "zip", "txt", "md", "html", "json").

    The extension says what the sender claims, the magic bytes say what it is; both must
    agree, otherwise `ParseError("type_mismatch")`. Unknown extensions are "unsupported",
    zero bytes are "empty".
    """
    extension = PurePath(filename).suffix.lower()
    if extension not in SUPPORTED_EXTENSIONS:
        message = gettext("%(file)s: unsupported file type %(extension)s; supported: %(supported)s")
        values = {
            "file": filename,
            "extension": extension or gettext("(no extension)"),
            "supported": _supported_list(),
        }
        raise ParseError("unsupported", message % values)
    if not data:
        raise ParseError("empty", gettext("%(file)s: the file is empty") % {"file": filename})
    expected = _EXPECTED_KIND[extension]
    actual = _sniff(data, allow_cp1252=expected in _LEGACY_TEXT_KINDS)
    if (
        expected in _TEXT_KINDS
        and actual == "text"
        and (expected != "json" or _looks_like_json(data))
    ):
        return expected
    if expected == actual:
        return expected
    if expected == "docx" and actual == "zip" and _zip_has_word_document(data) is None:
        message = gettext("%(file)s: the DOCX archive cannot be read")
        raise ParseError("corrupt", message % {"file": filename})
    # A .docx renamed to .zip is still a well-formed archive; expanding it is harmless.
    if expected == "zip" and actual == "docx":
        return "zip"
    message = gettext("%(file)s: extension says %(expected)s but the content is %(actual)s")
    kinds = {"expected": _KIND_LABEL[expected], "actual": _KIND_LABEL[actual]}
    raise ParseError("type_mismatch", message % {"file": filename, **kinds})


_BLANK_RUN_RE = re.compile(r"\n(?:[ \t]*\n)+")
_HORIZONTAL_SPACE_RE = re.compile(r"[ \t\r\f\v\u00a0]+")


def _normalise(text: str) -> str:
    """Unix newlines, no NULs, no trailing spaces, at most one blank line in a row."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _BLANK_RUN_RE.sub("\n\n", text).strip("\n")


def _join_pages(pages: list[str], media_type: str) -> ParsedText:
    starts: list[int] = []
    offset = 0
    for page in pages:
        starts.append(offset)
        offset += len(page) + 2  # the "\n\n" separator
    return ParsedText(text="\n\n".join(pages), page_starts=starts, media_type=media_type)


def _parse_pdf(filename: str, data: bytes) -> ParsedText:
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
        pages = [_normalise(page.extract_text() or "") for page in reader.pages]
    except ParseError:
        raise
    except Exception as exc:
        # pypdf raises anything from PdfReadError to KeyError or RecursionError on broken
        # input; for the pipeline they all mean the same thing.
        message = gettext("%(file)s: the PDF cannot be read (%(error)s)")
        raise ParseError("corrupt", message % {"file": filename, "error": exc}) from exc
    if not pages:
        raise ParseError("empty", gettext("%(file)s: the PDF has no pages") % {"file": filename})
    if not any(page.strip() for page in pages):
        # Scanned documents have pages but no text layer: OCR, not rejection.
        return ParsedText(text="", page_starts=[0] * len(pages), media_type="pdf", needs_ocr=True)
    return _join_pages(pages, "pdf")


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


def _parse_docx(filename: str, data: bytes) -> ParsedText:
    try:
        body = docx.Document(io.BytesIO(data)).element.body
        raw = "\n".join(_docx_blocks(body))
    except Exception as exc:
        # python-docx surfaces zipfile, KeyError and lxml errors for damaged packages.
        message = gettext("%(file)s: the DOCX cannot be read (%(error)s)")
        raise ParseError("corrupt", message % {"file": filename, "error": exc}) from exc
    # Word writes both an explicit break and a lastRenderedPageBreak at the same spot, so a
    # page with no text between two breaks is the same break counted twice.
    pages = [_normalise(page) for page in raw.split(_PAGE_BREAK)]
    merged = [pages[0]] + [page for page in pages[1:] if page.strip()]
    if not any(page.strip() for page in merged):
        message = gettext("%(file)s: the document contains no text")
        raise ParseError("empty", message % {"file": filename})
    if not merged[0].strip():
        merged = merged[1:]
    return _join_pages(merged, "docx")


class _HTMLTextExtractor(HTMLParser):
    _SKIP = frozenset({"script", "style", "head", "noscript", "template", "svg"})
    _PARAGRAPH = frozenset(
        {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "table",
         "ul", "ol", "blockquote", "pre", "header", "footer", "main", "aside", "nav",
         "form", "figure", "dl", "hr"}
    )  # fmt: skip
    _LINE = frozenset({"br", "li", "tr", "dt", "dd", "caption", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip_depth = 0
        self._cells_in_row = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self._skip_depth += 1
        elif tag in self._PARAGRAPH:
            self.parts.append("\n\n")
        elif tag in self._LINE:
            self.parts.append("\n")
            self._cells_in_row = 0
        elif tag in ("td", "th"):
            if self._cells_in_row:
                self.parts.append(" | ")
            self._cells_in_row += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # <br/> and <hr/> never get an end tag, and a void <script/> must not open a skip.
        if tag not in self._SKIP:
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self._skip_depth = max(0, self._skip_depth - 1)
        elif tag in self._PARAGRAPH:
            self.parts.append("\n\n")
        elif tag in self._LINE:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip_depth:
            # Source newlines are layout, not structure: only tags make lines.
            self.parts.append(data.replace("\n", " "))


def _parse_html(filename: str, text: str) -> ParsedText:
    extractor = _HTMLTextExtractor()
    extractor.feed(text)
    extractor.close()
    lines = (
        _HORIZONTAL_SPACE_RE.sub(" ", line).strip() for line in "".join(extractor.parts).split("\n")
    )
    body = _normalise("\n".join(lines))
    if not body:
        message = gettext("%(file)s: the page contains no text")
        raise ParseError("empty", message % {"file": filename})
    return ParsedText(text=body, page_starts=[0], media_type="html")


def _parse_plain(filename: str, text: str, media_type: str) -> ParsedText:
    # Form feeds are how plain-text exports (and pdftotext) mark page boundaries.
    pages = [_normalise(page) for page in text.replace("\r\n", "\n").split("\f")]
    if not any(page.strip() for page in pages):
        message = gettext("%(file)s: the file contains no text")
        raise ParseError("empty", message % {"file": filename})
    return _join_pages(pages, media_type)


def parse_document(filename: str, data: bytes) -> ParsedText:
    """Extract the text of a PDF, DOCX, HTML, Markdown or plain-text file, page by page.

    Raises `ParseError` for anything unreadable; a PDF without a text layer is not an
    error but comes back with `needs_ocr=True` and empty text.
    """
    kind = detect_type(filename, data)
    if kind in ("zip", "json"):
        message = gettext(
            "%(file)s: %(kind)s files are not parsed as documents; use the data-room import / "
            "archive expansion"
        )
        raise ParseError("unsupported", message % {"file": filename, "kind": _KIND_LABEL[kind]})
    if kind == "pdf":
        return _parse_pdf(filename, data)
    if kind == "docx":
        return _parse_docx(filename, data)
    text = _decode_text(data, allow_cp1252=kind in _LEGACY_TEXT_KINDS)
    if text is None:  # pragma: no cover - detect_type already proved it decodes
        message = gettext("%(file)s: the text cannot be decoded")
        raise ParseError("corrupt", message % {"file": filename})
    if kind == "html":
        return _parse_html(filename, text)
    return _parse_plain(filename, text, kind)


# --- ZIP expansion -----------------------------------------------------------------------

_READ_CHUNK = 1 << 16
# Tiny members legitimately compress far better than max_ratio (a page of spaces); the ratio
# test only matters once a member is big enough to hurt.
_RATIO_FLOOR_BYTES = 1 << 20
_JUNK_NAMES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})
_DRIVE_RE = re.compile(r"^[A-Za-z]:")


class _ArchiveTooLarge(ParseError):
    """The shared size budget is spent: the whole batch stops, nested or not."""

    def __init__(self) -> None:
        super().__init__("zip_bomb", gettext("the archive expands beyond the size limit"))


@dataclass
class _Budget:
    """Counters shared by an archive and the archives nested in it."""

    members_left: int
    bytes_left: int


def _is_junk(parts: list[str]) -> bool:
    return "__MACOSX" in parts or parts[-1] in _JUNK_NAMES or parts[-1].startswith("._")


def _safe_parts(name: str) -> list[str] | None:
    """Path components of a member name, or None when extracting it could escape."""
    unified = name.replace("\\", "/")
    if unified.startswith("/") or _DRIVE_RE.match(unified):
        return None
    parts = [part for part in unified.split("/") if part not in ("", ".")]
    if ".." in parts:
        return None
    return parts


def _read_member(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, *, budget: _Budget, max_ratio: float
) -> bytes:
    """Decompress one member in chunks, stopping as soon as it outgrows what it declared."""
    buffer = bytearray()
    with archive.open(info) as stream:
        while chunk := stream.read(_READ_CHUNK):
            buffer += chunk
            if len(buffer) > budget.bytes_left:
                raise _ArchiveTooLarge
            if len(buffer) > info.file_size:
                message = gettext("the member expands beyond its declared size")
                raise ParseError("zip_bomb", message)
            if len(buffer) > _RATIO_FLOOR_BYTES and len(buffer) > max_ratio * max(
                info.compress_size, 1
            ):
                message = gettext("the member's compression ratio is implausible")
                raise ParseError("zip_bomb", message)
    budget.bytes_left -= len(buffer)
    return bytes(buffer)


def _iter_archive(
    data: bytes, *, prefix: str, budget: _Budget, max_ratio: float, max_depth: int, depth: int
) -> Iterator[tuple[str, bytes | ParseError]]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        message = gettext("%(file)s: not a readable ZIP (%(error)s)")
        values = {"file": prefix or gettext("archive"), "error": exc}
        raise ParseError("corrupt", message % values) from exc
    with archive:
        members = [info for info in archive.infolist() if not info.is_dir()]
        if len(members) > budget.members_left:
            raise ParseError("zip_too_many_files", gettext("the archive holds too many files"))
        budget.members_left -= len(members)
        # Members under the floor escape the per-member ratio test below, so many of them
        # could still multiply an upload a thousandfold: together they answer to the ratio.
        small = [info for info in members if info.file_size <= _RATIO_FLOOR_BYTES]
        declared = sum(info.file_size for info in small)
        packed = max(sum(info.compress_size for info in small), 1)
        if declared > _RATIO_FLOOR_BYTES and declared > max_ratio * packed:
            message = gettext("its small files expand %(ratio).0f times (at most %(limit).0f)")
            raise ParseError("zip_bomb", message % {"ratio": declared / packed, "limit": max_ratio})
        # Headers can lie low (caught while reading) but a high declared total is reason
        # enough to refuse before inflating anything; nested, it is one bad member.
        if sum(info.file_size for info in members) > budget.bytes_left:
            message = gettext("the archive declares more bytes than the size limit")
            raise ParseError("zip_bomb", message)
        for info in members:
            parts = _safe_parts(info.filename)
            if parts is None:
                message = gettext("%(file)s: path escapes the archive")
                yield (
                    prefix + info.filename,
                    ParseError("zip_unsafe_path", message % {"file": info.filename}),
                )
                continue
            if not parts or _is_junk(parts):
                continue
            path = prefix + "/".join(parts)
            if info.flag_bits & 0x1:
                message = gettext("%(file)s: the member is password-protected")
                yield path, ParseError("encrypted", message % {"file": path})
                continue
            ratio = info.file_size / max(info.compress_size, 1)
            if info.file_size > _RATIO_FLOOR_BYTES and ratio > max_ratio:
                message = gettext(
                    "%(file)s: declared compression ratio %(ratio).0f:1 is implausible"
                )
                yield path, ParseError("zip_bomb", message % {"file": path, "ratio": ratio})
                continue
            try:
                content = _read_member(archive, info, budget=budget, max_ratio=max_ratio)
            except _ArchiveTooLarge:
                raise
            except ParseError as exc:
                yield path, _named(path, exc)
                continue
            except (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError,
                    OSError, EOFError, ValueError) as exc:  # fmt: skip
                message = gettext("%(file)s: the member cannot be extracted (%(error)s)")
                yield path, ParseError("corrupt", message % {"file": path, "error": exc})
                continue
            if not path.lower().endswith(".zip"):
                yield path, content
            elif depth + 1 > max_depth:
                message = gettext("%(file)s: archives nested more than %(depth)d deep")
                nested = message % {"file": path, "depth": max_depth}
                yield path, ParseError("zip_nested_too_deep", nested)
            else:
                yield from _iter_nested(
                    content, path=path, budget=budget, max_ratio=max_ratio,
                    max_depth=max_depth, depth=depth + 1,
                )  # fmt: skip


def _iter_nested(
    data: bytes, *, path: str, budget: _Budget, max_ratio: float, max_depth: int, depth: int
) -> Iterator[tuple[str, bytes | ParseError]]:
    """Expand an inner archive; its own defects are one bad member, not a failed batch."""
    try:
        yield from _iter_archive(
            data, prefix=path + "/", budget=budget, max_ratio=max_ratio,
            max_depth=max_depth, depth=depth,
        )  # fmt: skip
    except _ArchiveTooLarge:
        raise
    except ParseError as exc:
        yield path, _named(path, exc)


def _named(path: str, error: ParseError) -> ParseError:
    """The error with the member's path in front, as every refusal names its file."""
    message = gettext("%(file)s: %(reason)s") % {"file": path, "reason": error.message}
    return ParseError(error.code, message)


def iter_zip_members(
    data: bytes,
    *,
    max_members: int = 2000,
    max_total_bytes: int = 500_000_000,
    max_ratio: float = 200.0,
    max_depth: int = 2,
    _depth: int = 0,
) -> Iterator[tuple[str, bytes | ParseError]]:
    """Yield `(member_path, bytes)` for each regular file of a ZIP, nested ZIPs expanded.

    A bad member comes back as `(member_path, ParseError)` and the expansion goes on; a bad
    archive (unreadable, too many files, expanding past `max_total_bytes`) raises. Limits
    cover the archive and everything nested in it together.
    """
    budget = _Budget(members_left=max_members, bytes_left=max_total_bytes)
    yield from _iter_archive(
        data, prefix="", budget=budget, max_ratio=max_ratio, max_depth=max_depth, depth=_depth
    )
