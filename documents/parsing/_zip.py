"""ZIP archives: expanded safely (size, count, ratio and nesting limits, no path escapes).

A container, not a document: each member is stored as its own document.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from django.utils.translation import gettext

from documents.parsing._formats import Format, ParseError, register_format


def is_zip(data: bytes) -> bool:
    return data.startswith((b"PK\x03\x04", b"PK\x05\x06"))


def zip_has_word_document(data: bytes) -> bool | None:
    """True/False for a readable ZIP, None if the central directory cannot be read."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return "word/document.xml" in archive.namelist()
    # NotImplementedError: a member claims a "version needed to extract" zipfile lacks
    # (found by manage.py fuzz: a corrupted DOCX crashed the upload).
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError,
            NotImplementedError):  # fmt: skip
        return None


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


def _check_totals(members: list[zipfile.ZipInfo], *, budget: _Budget, max_ratio: float) -> None:
    """Refuse the whole archive on what its directory declares, before inflating anything."""
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


def _iter_archive(
    data: bytes, *, prefix: str, budget: _Budget, max_ratio: float, max_depth: int, depth: int
) -> Iterator[tuple[str, bytes | ParseError]]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError,
            NotImplementedError) as exc:  # fmt: skip
        message = gettext("%(file)s: not a readable ZIP (%(error)s)")
        values = {"file": prefix or gettext("archive"), "error": exc}
        raise ParseError("corrupt", message % values) from exc
    with archive:
        members = [info for info in archive.infolist() if not info.is_dir()]
        _check_totals(members, budget=budget, max_ratio=max_ratio)
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


def _is_plain_zip(data: bytes) -> bool:
    return is_zip(data) and not zip_has_word_document(data)


# A .docx renamed to .zip is still a well-formed archive; expanding it is harmless.
register_format(
    Format(name="zip", extensions=(".zip",), label="ZIP", content="binary", sniff=_is_plain_zip,
           accepts=("docx",))
)  # fmt: skip
