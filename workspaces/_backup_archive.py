"""Reading a backup archive without trusting it: the signature and the manifest's shape
first, then every member against the manifest's size and SHA-256, as a stream.

A member is refused before a byte of it is read when it is not a plain regular file (a GNU
sparse member declares gigabytes in a few kilobytes of archive) or when its size differs from
the one the signed manifest lists (format 3); reading stops at that size.
``backup_verify`` is this, without the restore."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any

from django.conf import settings
from django.utils.translation import gettext as _

from workspaces._backup_seal import (
    SIGNATURE,
    BackupError,
    DecryptingReader,
    is_encrypted,
    seal_check,
)

# 3: every member's size in the signed manifest ("sizes"), checked before the member is read;
# 2: the manifest first and signed (manifest.sig); 1 (manifest last, unsigned) still restores.
FORMAT = 3
READABLE_FORMATS = (1, 2, 3)
SIZED_FORMAT = 3
DUMP, MANIFEST, MEDIA = "database.dump", "manifest.json", "media"
CHUNK = 1 << 20
_SHA256 = re.compile(r"[0-9a-f]{64}")


@dataclass
class _Opened:
    archive: tarfile.TarFile
    manifest: dict[str, Any]
    signature: str
    encrypted: bool
    finish: Any  # reads an encrypted stream to its last record


@contextlib.contextmanager
def open_checked(path: Path, *, allow_unsigned: bool) -> Iterator[_Opened]:
    """The archive opened, its signature checked and its manifest's shape: nothing of it is
    trusted before. Its members still have to be checked against the manifest's SHA-256."""
    with contextlib.ExitStack() as stack:
        raw = stack.enter_context(path.open("rb"))
        encrypted = is_encrypted(raw.read(16))
        raw.seek(0)
        finish = None
        try:
            if encrypted:
                reader = DecryptingReader(raw, secret=settings.LEXROOM_BACKUP_ENCRYPTION_KEY)
                finish = reader.finish
                archive = stack.enter_context(tarfile.open(fileobj=reader, mode="r|"))  # type: ignore[call-overload]
            else:
                archive = stack.enter_context(tarfile.open(fileobj=raw, mode="r:"))
        except tarfile.TarError as exc:
            raise BackupError(_("Not a Lexroom backup: %(error)s") % {"error": exc}) from None
        manifest_data, seal = _head(archive, streamed=encrypted)
        signature = seal_check(
            manifest=manifest_data,
            seal=seal,
            secret=settings.LEXROOM_BACKUP_KEY,
            allow_unsigned=allow_unsigned,
        )
        yield _Opened(archive, _manifest_parse(manifest_data), signature, encrypted, finish)


def _plain_file(member: tarfile.TarInfo) -> bool:
    # isfile() is true of a GNU sparse member too: its holes are read as zeros, gigabytes of
    # them from a few kilobytes of archive.
    return member.isfile() and not member.issparse()


def _read(archive: tarfile.TarFile, member: tarfile.TarInfo) -> bytes:
    handle = (
        archive.extractfile(member) if _plain_file(member) and member.size < 64 * CHUNK else None
    )
    if handle is None:
        raise BackupError(_("%(name)s: cannot be read.") % {"name": member.name})
    return handle.read()


def _head(archive: tarfile.TarFile, *, streamed: bool) -> tuple[bytes, bytes | None]:
    """The manifest's bytes and the signature's (None when the archive has none)."""
    if streamed:  # an encrypted archive is read once, in order: the manifest comes first
        first = archive.next()
        if first is None or first.name != MANIFEST:
            raise BackupError(_("Not a Lexroom backup (no %(name)s first).") % {"name": MANIFEST})
        manifest = _read(archive, first)  # before the next header: a stream never seeks back
        second = archive.next()
        return manifest, _read(archive, second) if second and second.name == SIGNATURE else None
    try:
        manifest = _read(archive, archive.getmember(MANIFEST))
    except KeyError:
        raise BackupError(_("Not a Lexroom backup (no %(name)s).") % {"name": MANIFEST}) from None
    try:
        return manifest, _read(archive, archive.getmember(SIGNATURE))
    except KeyError:
        return manifest, None


def _manifest_parse(data: bytes) -> dict[str, Any]:
    """The manifest, refused unless it has the shape ``backup_write`` gives it."""
    try:
        manifest = json.loads(data)
    except ValueError as exc:
        raise BackupError(_("The manifest is not JSON: %(error)s") % {"error": exc}) from None
    if not isinstance(manifest, dict) or manifest.get("format") not in READABLE_FORMATS:
        found = manifest.get("format") if isinstance(manifest, dict) else None
        raise BackupError(_("Unknown backup format: %(format)s") % {"format": found})
    members, tables = manifest.get("members"), manifest.get("tables")
    problems = []
    if not isinstance(members, dict) or DUMP not in members:
        problems.append(_("its members do not include %(name)s") % {"name": DUMP})
    else:
        for name, digest in members.items():
            _safe_name(name)
            if name != DUMP and not name.startswith(f"{MEDIA}/"):
                problems.append(_("%(name)s is neither the dump nor an original") % {"name": name})
            if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
                problems.append(_("%(name)s has no SHA-256") % {"name": name})
    if manifest["format"] >= SIZED_FORMAT:
        problems.extend(_sizes_problems(manifest.get("sizes"), members))
    if not isinstance(tables, dict) or not tables:
        problems.append(_("it lists no table"))
    else:
        for table, counts in tables.items():
            if not (isinstance(counts, dict) and set(counts) == {"rows", "checksum"}
                    and all(isinstance(v, int) and v >= 0 for v in counts.values())):  # fmt: skip
                problems.append(
                    _("table %(table)s has no row count and checksum") % {"table": table}
                )
    if not isinstance(manifest.get("created_at"), str):
        problems.append(_("it has no creation date"))
    if problems:
        raise BackupError(
            _("The manifest is malformed: %(problems)s") % {"problems": "; ".join(problems[:3])}
        )
    return manifest


def _sizes_problems(sizes: object, members: object) -> list[str]:
    if not (isinstance(sizes, dict) and isinstance(members, dict) and set(sizes) == set(members)):
        return [_("its sizes do not list exactly its members")]
    return [
        _("%(name)s has no size") % {"name": name}
        for name, size in sizes.items()
        if not isinstance(size, int) or isinstance(size, bool) or size < 0
    ]


def manifest_bytes(manifest: dict[str, Any]) -> int | None:
    """What the members take once extracted, as the manifest says (None before format 3)."""
    sizes = manifest.get("sizes")
    return sum(sizes.values()) if isinstance(sizes, dict) else None


def _safe_name(name: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts:
        raise BackupError(
            _("Refused: the member %(name)r points outside the restore folder.") % {"name": name}
        )
    return path


def _member_refused(member: tarfile.TarInfo, manifest: dict[str, Any], seen: set[str]) -> None:
    """Refuse a member from its header alone, before a byte of it is read."""
    if member.issparse():
        raise BackupError(
            _("Refused: %(name)r is a sparse member (its size is not what it stores).")
            % {"name": member.name}
        )
    if not _plain_file(member) or member.name not in manifest["members"] or member.name in seen:
        raise BackupError(
            _("Refused: %(name)r is not a file the manifest lists.") % {"name": member.name}
        )
    sizes = manifest.get("sizes")
    if isinstance(sizes, dict) and member.size != sizes[member.name]:
        raise BackupError(
            _("Refused: %(name)s holds %(size)d bytes; the manifest lists %(listed)d.")
            % {"name": member.name, "size": member.size, "listed": sizes[member.name]}
        )


def _copy_checked(source: IO[bytes], size: int, sink: IO[bytes] | None) -> str:
    """Read exactly ``size`` bytes (never more), written to ``sink``; their SHA-256."""
    digest = hashlib.sha256()
    left = size
    while left > 0 and (block := source.read(min(CHUNK, left))):
        digest.update(block)
        left -= len(block)
        if sink is not None:
            sink.write(block)
    return digest.hexdigest()


def check_members(opened: _Opened, folder: Path | None) -> int:
    """Every member the manifest lists, checked against its size and SHA-256 (and extracted
    into ``folder`` when given); returns the bytes read."""
    expected: dict[str, str] = opened.manifest["members"]
    seen: set[str] = set()
    total = 0
    for member in opened.archive:
        if member.name in (MANIFEST, SIGNATURE):
            continue
        name = _safe_name(member.name)
        _member_refused(member, opened.manifest, seen)
        seen.add(member.name)
        source = opened.archive.extractfile(member)
        if source is None:
            raise BackupError(_("%(name)s: cannot be read.") % {"name": member.name})
        with contextlib.ExitStack() as stack:
            sink: IO[bytes] | None = None
            if folder is not None:
                destination = folder.joinpath(*name.parts)
                destination.parent.mkdir(parents=True, exist_ok=True)
                sink = stack.enter_context(destination.open("wb"))
            checksum = _copy_checked(source, member.size, sink)
        total += member.size
        if checksum != expected[member.name]:
            raise BackupError(
                _("%(name)s was altered: its checksum differs from the manifest's.")
                % {"name": member.name}
            )
    if opened.finish is not None:
        opened.finish()
    missing = sorted(set(expected) - seen)
    if missing:
        raise BackupError(
            _("The archive lacks %(count)d member(s): %(names)s")
            % {"count": len(missing), "names": missing[:3]}
        )
    return total


def backup_verify(path: Path, *, allow_unsigned: bool = False) -> dict[str, Any]:
    """Check an archive without restoring it: its signature, its manifest's shape, every
    member's SHA-256 (read as a stream, nothing written). Raises ``BackupError`` naming why."""
    with open_checked(path, allow_unsigned=allow_unsigned) as opened:
        size = check_members(opened, None)
    manifest = opened.manifest
    return {
        "archive": str(path),
        "ok": True,
        "format": manifest["format"],
        "signature": opened.signature,
        "encrypted": opened.encrypted,
        "backup_created_at": manifest["created_at"],
        "tables": len(manifest["tables"]),
        "rows": sum(t["rows"] for t in manifest["tables"].values()),
        "files": sum(1 for name in manifest["members"] if name.startswith(f"{MEDIA}/")),
        "bytes": size,
    }
