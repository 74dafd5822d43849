"""Backups IT can trust: an archive taken while users write restores and passes its own
check; a signed archive altered in any way (a file, the manifest rebuilt, the signature
removed or made with another key, a sparse or resized member swapped in) is refused by
`restore` and by `backup --verify`, naming why, before the database is touched and before a
large member is written; `--allow-unsigned` lets only archives older than signing through while
a key is set; an encrypted archive round-trips and is unreadable without its key."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from types import SimpleNamespace

import psycopg
import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connections
from pytest_django.fixtures import Settings

from documents.pipeline import store_named
from tests.helpers.rooms import Room
from workspaces._backup_seal import seal_write
from workspaces.backup import BackupError, backup_restore, backup_verify, backup_write, target
from workspaces.services import audit_record_scoped
from workspaces.tenancy import workspace_scope

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("backup_key", "english"),
]
ENCRYPTION_KEY = "archive-encryption-key-for-tests-abcdefgh"

Change = Callable[[tarfile.TarInfo, bytes], tuple[tarfile.TarInfo, bytes] | None]


def _rewritten(source: Path, destination: Path, change: Change) -> None:
    """The plain archive copied member by member through ``change`` (None drops a member)."""
    with tarfile.open(source) as old, tarfile.open(destination, "w") as new:
        for member in old.getmembers():
            handle = old.extractfile(member)
            assert handle is not None
            changed = change(member, handle.read())
            if changed is None:
                continue
            member, data = changed
            member.size = len(data)
            new.addfile(member, io.BytesIO(data))


def _exists(dbname: str) -> bool:
    admin = psycopg.conninfo.conninfo_to_dict(target(dbname).conninfo)
    with psycopg.connect(**{**admin, "dbname": "postgres"}) as conn:
        row = conn.execute("SELECT count(*) FROM pg_database WHERE datname = %s", [dbname])
        return bool(row.fetchone()[0])  # type: ignore[index]


def _refused_everywhere(archive: Path, scratch: str, media: Path, reason: str) -> None:
    """Refused by restore and by `backup --verify` with ``reason``; nothing was restored."""
    with pytest.raises(BackupError, match=reason):
        backup_restore(archive, dbname=scratch, media_root=media)
    assert not _exists(scratch)
    assert not media.exists()
    out = io.StringIO()
    with pytest.raises(CommandError, match=reason):
        call_command("backup", "--verify", str(archive), "--json", stdout=out)
    assert json.loads(out.getvalue())["ok"] is False


@contextmanager
def _users_writing(room: Room) -> Iterator[list[int]]:
    """A thread writing documents, cache rows and audit rows until the block ends."""
    stop, written, errors = threading.Event(), [0], []

    def write() -> None:
        try:
            while not stop.is_set():
                written[0] += 1
                number = written[0]
                cache.set(f"busy-{number}", "x" * 200, 3600)
                audit_record_scoped(
                    firm=room.firm,
                    action="busy.write",
                    workspace=room.workspace,
                    target=f"{number}",
                )
                with workspace_scope(room.workspace):
                    store_named(
                        workspace=room.workspace,
                        name=f"note-{number}.txt",
                        data=f"Note {number}: le loyer est payé.".encode(),
                        user=room.owner,
                    )
        except Exception as exc:  # reported below, in the test's thread
            errors.append(exc)
        finally:
            connections.close_all()

    thread = threading.Thread(target=write)
    thread.start()
    try:
        yield written
    finally:
        stop.set()
        thread.join(timeout=60)
    assert not errors, errors


def test_a_backup_taken_while_users_write_restores_and_passes_its_check(filled, scratch, tmp_path):
    archive = tmp_path / "busy.tar"
    with _users_writing(filled) as written:
        while written[0] < 3:  # the writer is under way before the backup starts
            threading.Event().wait(0.02)
        before = written[0]
        manifest = backup_write(archive)
        during = written[0] - before
    assert during > 0, "nothing was written while the backup ran"
    report = backup_restore(archive, dbname=scratch, media_root=tmp_path / "restored")
    assert report["rows"] == sum(t["rows"] for t in manifest["tables"].values())
    assert manifest["tables"]["lexroom_cache"]["rows"] > 0


def test_a_signed_archive_verifies_and_restores(filled, scratch, tmp_path):
    archive = tmp_path / "lexroom.tar"
    backup_write(archive)
    verified = backup_verify(archive)
    assert verified["ok"] and verified["signature"].startswith("HMAC-SHA256")
    assert verified["files"] >= 1 and not verified["encrypted"]
    out = io.StringIO()
    call_command("backup", "--verify", str(archive), stdout=out)
    assert "is intact: signature HMAC-SHA256" in out.getvalue()
    report = backup_restore(archive, dbname=scratch, media_root=tmp_path / "m")
    assert report["signature"] == verified["signature"]


def test_an_altered_file_is_refused_naming_it(filled, scratch, tmp_path):
    archive, altered = tmp_path / "lexroom.tar", tmp_path / "altered.tar"
    backup_write(archive)

    def alter(member: tarfile.TarInfo, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
        # Same length: the size matches, the checksum does not.
        return member, data.replace(b"Douze mille", b"Deux mille!") if member.name.startswith(
            "media/"
        ) else data

    _rewritten(archive, altered, alter)
    _refused_everywhere(altered, scratch, tmp_path / "m", r"media/originals/.*\.txt was altered")


def test_a_rebuilt_manifest_is_refused_with_either_signature(filled, scratch, tmp_path):
    """The attack: change the contract and the dump, rebuild the manifest with their new
    hashes; keep the old signature, or sign with a key of one's own."""
    archive = tmp_path / "lexroom.tar"
    backup_write(archive)
    with tarfile.open(archive) as source:
        manifest = json.loads(source.extractfile("manifest.json").read())  # type: ignore[union-attr]
    forged_media: dict[str, bytes] = {}

    def forge(seal_key: str | None) -> Change:
        def change(member: tarfile.TarInfo, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
            if member.name.startswith("media/"):
                data = data.replace(b"Douze mille", b"Un euro")
                forged_media[member.name] = data
                manifest["members"][member.name] = hashlib.sha256(data).hexdigest()
            return member, data

        return change

    rebuilt = tmp_path / "rebuilt.tar"
    _rewritten(archive, rebuilt, forge(None))
    new_manifest = json.dumps(manifest, indent=1, sort_keys=True).encode()

    def with_manifest(seal: bytes | None) -> Change:
        def change(member: tarfile.TarInfo, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
            if member.name == "manifest.json":
                return member, new_manifest
            if member.name == "manifest.sig" and seal is not None:
                return member, seal
            return member, data

        return change

    kept_signature = tmp_path / "kept.tar"
    _rewritten(rebuilt, kept_signature, with_manifest(None))
    _refused_everywhere(kept_signature, scratch, tmp_path / "m1", "the manifest was altered")
    own_key = tmp_path / "own.tar"
    attacker = seal_write(manifest=new_manifest, secret="an-attackers-own-key-0123456789abcdef")
    _rewritten(rebuilt, own_key, with_manifest(attacker))
    _refused_everywhere(own_key, scratch, tmp_path / "m2", "signed with another key")
    # --allow-unsigned never lets a wrong signature through.
    with pytest.raises(BackupError, match="another key"):
        backup_restore(own_key, dbname=scratch, media_root=tmp_path / "m3", allow_unsigned=True)


def test_a_removed_signature_is_refused_even_with_allow_unsigned_while_a_key_is_set(
    filled, scratch, tmp_path
):
    archive, stripped = tmp_path / "lexroom.tar", tmp_path / "stripped.tar"
    backup_write(archive)
    _rewritten(archive, stripped, lambda m, d: None if m.name == "manifest.sig" else (m, d))
    _refused_everywhere(stripped, scratch, tmp_path / "m", "not signed")
    with pytest.raises(CommandError, match=r"no manifest\.sig, though every archive of its format"):
        call_command("restore", str(stripped), "--database", scratch, "--media-root",
                     str(tmp_path / "m"), "--allow-unsigned", stdout=io.StringIO())  # fmt: skip
    assert not _exists(scratch)


def test_a_signature_stripped_to_none_is_refused_even_with_allow_unsigned_while_a_key_is_set(
    filled, scratch, tmp_path
):
    """The attack: alter a file, put its new hash in the manifest, replace the signature by
    {"algorithm": "none"}, and hope the operator reaches for --allow-unsigned."""
    archive, forged = tmp_path / "lexroom.tar", tmp_path / "forged.tar"
    backup_write(archive)
    with tarfile.open(archive) as source:
        manifest = json.loads(source.extractfile("manifest.json").read())  # type: ignore[union-attr]
        originals = {
            m.name: source.extractfile(m).read()  # type: ignore[union-attr]
            for m in source.getmembers()
            if m.name.startswith("media/")
        }
    for name, data in originals.items():
        changed = data.replace(b"Douze mille", b"Deux mille!")  # same length: same size
        manifest["members"][name] = hashlib.sha256(changed).hexdigest()
        originals[name] = changed
    new_manifest = json.dumps(manifest, indent=1, sort_keys=True).encode()

    def forge(member: tarfile.TarInfo, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
        if member.name == "manifest.json":
            return member, new_manifest
        if member.name == "manifest.sig":
            return member, json.dumps({"algorithm": "none"}).encode()
        return member, originals.get(member.name, data)

    _rewritten(archive, forged, forge)
    reason = "even with --allow-unsigned.*manifest.sig does not verify"
    with pytest.raises(BackupError, match=reason):
        backup_restore(forged, dbname=scratch, media_root=tmp_path / "m", allow_unsigned=True)
    with pytest.raises(CommandError, match=reason):
        call_command("backup", "--verify", str(forged), "--allow-unsigned", stdout=io.StringIO())
    assert not _exists(scratch) and not (tmp_path / "m").exists()


def test_a_format_1_archive_without_signature_still_restores_with_allow_unsigned(
    filled, scratch, tmp_path
):
    """Archives older than signing: the manifest last, no manifest.sig, no sizes."""
    archive, old = tmp_path / "lexroom.tar", tmp_path / "format1.tar"
    backup_write(archive)
    with tarfile.open(archive) as source:
        manifest = json.loads(source.extractfile("manifest.json").read())  # type: ignore[union-attr]
    manifest["format"] = 1
    del manifest["sizes"]
    with tarfile.open(archive) as source, tarfile.open(old, "w") as new:
        for member in source.getmembers():
            if member.name not in ("manifest.json", "manifest.sig"):
                new.addfile(member, source.extractfile(member))
        data = json.dumps(manifest).encode()
        info = tarfile.TarInfo("manifest.json")
        info.size = len(data)
        new.addfile(info, io.BytesIO(data))
    _refused_everywhere(old, scratch, tmp_path / "m1", "not signed")
    out, err = io.StringIO(), io.StringIO()
    call_command("restore", str(old), "--database", scratch, "--media-root",
                 str(tmp_path / "m"), "--allow-unsigned", stdout=out, stderr=err)  # fmt: skip
    assert "signature unsigned" in out.getvalue()
    assert "WITHOUT checking a signature" in err.getvalue()


def _media_name(archive: Path) -> str:
    with tarfile.open(archive) as source:
        return next(name for name in source.getnames() if name.startswith("media/"))


def _sparse_swapped_in(signed: Path, name: str, folder: Path, size: int) -> Path:
    """``signed`` with its member ``name`` replaced, byte for byte, by a GNU sparse member of
    the same name declaring ``size`` bytes: no key is needed to make it."""
    sparse_file = folder / "sparse" / name
    sparse_file.parent.mkdir(parents=True)
    with sparse_file.open("wb") as handle:
        handle.truncate(size)
    sparse_tar = folder / "sparse.tar"
    subprocess.run(["tar", "--sparse", "--format=gnu", "-C", str(folder / "sparse"),
                    "-cf", str(sparse_tar), name], check=True)  # fmt: skip
    assert sparse_tar.stat().st_size < 64 * 1024

    def spans(path: Path) -> dict[str, tuple[int, int]]:
        with tarfile.open(path) as archive:
            members = archive.getmembers()
            ends = [m.offset for m in members[1:]] + [archive.offset]
            return {m.name: (m.offset, end) for m, end in zip(members, ends, strict=True)}

    raw, swap = signed.read_bytes(), sparse_tar.read_bytes()
    swap_start, swap_end = spans(sparse_tar)[name]
    pieces = [
        swap[swap_start:swap_end] if member == name else raw[start:end]
        for member, (start, end) in spans(signed).items()
    ]
    swapped = folder / "swapped.tar"
    swapped.write_bytes(b"".join(pieces) + bytes(1024))
    return swapped


def _bytes_under(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def test_a_sparse_member_swapped_into_a_signed_archive_is_refused_before_it_is_written(
    filled, scratch, tmp_path, kept_restore_folders: Path
):
    archive = tmp_path / "lexroom.tar"
    backup_write(archive)
    swapped = _sparse_swapped_in(archive, _media_name(archive), tmp_path, 200 << 20)
    _refused_everywhere(swapped, scratch, tmp_path / "m", "is a sparse member")
    assert _bytes_under(kept_restore_folders) < 1 << 20  # the dump at most, never 200 MiB


def test_a_member_whose_size_differs_from_the_manifest_is_refused_unread(
    filled, scratch, tmp_path, kept_restore_folders: Path
):
    archive, resized = tmp_path / "lexroom.tar", tmp_path / "resized.tar"
    backup_write(archive)
    name = _media_name(archive)
    _rewritten(archive, resized, lambda m, d: (m, d + b" " * 4096 if m.name == name else d))
    _refused_everywhere(resized, scratch, tmp_path / "m", rf"{name} holds \d+ bytes; the manifest")
    assert not list(kept_restore_folders.rglob(PurePosixPath(name).name))


def test_a_restore_the_disk_cannot_hold_is_refused_before_extracting(
    filled, scratch, tmp_path, monkeypatch: pytest.MonkeyPatch
):
    archive = tmp_path / "lexroom.tar"
    backup_write(archive)
    almost_full = SimpleNamespace(total=1 << 30, used=1 << 30, free=4096)
    monkeypatch.setattr(shutil, "disk_usage", lambda path: almost_full)
    with pytest.raises(BackupError, match=r"needs [\d.]+ MiB in .* but only 0\.0 MiB are free"):
        backup_restore(archive, dbname=scratch, media_root=tmp_path / "m")
    assert not _exists(scratch) and not (tmp_path / "m").exists()


def test_a_restore_needs_the_key_the_archive_was_signed_with(
    filled, scratch, tmp_path, settings: Settings
):
    archive = tmp_path / "lexroom.tar"
    backup_write(archive)
    settings.LEXROOM_BACKUP_KEY = "another-install-key-0123456789abcdefgh"
    _refused_everywhere(archive, scratch, tmp_path / "m1", "signed with another key")
    settings.LEXROOM_BACKUP_KEY = ""
    _refused_everywhere(archive, scratch, tmp_path / "m2", "LEXROOM_BACKUP_KEY is not set here")


def test_backup_without_a_key_refuses_unless_unsigned(
    filled, scratch, tmp_path, settings: Settings
):
    settings.LEXROOM_BACKUP_KEY = ""
    with pytest.raises(CommandError, match="LEXROOM_BACKUP_KEY is not set"):
        call_command("backup", str(tmp_path / "a.tar"))
    assert not (tmp_path / "a.tar").exists()
    err = io.StringIO()
    call_command("backup", str(tmp_path / "a.tar"), "--unsigned", stdout=io.StringIO(), stderr=err)
    assert "NOT signed" in err.getvalue()
    _refused_everywhere(tmp_path / "a.tar", scratch, tmp_path / "m", "not signed")
    assert backup_verify(tmp_path / "a.tar", allow_unsigned=True)["signature"] == "unsigned"


def test_an_encrypted_archive_round_trips_and_is_unreadable_without_its_key(
    filled, scratch, tmp_path, settings: Settings
):
    media = tmp_path / "media"
    media.mkdir()
    (media / "bail.txt").write_text("CONTRAT DE BAIL: Douze mille euros par an.")
    # Several 1 MiB records: the stream is cut and sealed record by record.
    (media / "big.bin").write_bytes(os.urandom(3 * (1 << 20) + 17))
    plain = tmp_path / "plain.tar"
    backup_write(plain, media_root=media)
    assert b"Douze mille euros" in plain.read_bytes()
    settings.LEXROOM_BACKUP_ENCRYPTION_KEY = ENCRYPTION_KEY
    sealed = tmp_path / "sealed.tar.enc"
    backup_write(sealed, media_root=media)
    data = sealed.read_bytes()
    assert b"Douze mille euros" not in data and b"manifest.json" not in data
    assert backup_verify(sealed)["encrypted"] is True

    settings.LEXROOM_BACKUP_ENCRYPTION_KEY = ""
    _refused_everywhere(sealed, scratch, tmp_path / "m1", "The archive is encrypted")
    settings.LEXROOM_BACKUP_ENCRYPTION_KEY = "not-the-encryption-key-0123456789abcdef"
    _refused_everywhere(sealed, scratch, tmp_path / "m2", "encrypted with another key")
    settings.LEXROOM_BACKUP_ENCRYPTION_KEY = ENCRYPTION_KEY
    flipped = tmp_path / "flipped.tar.enc"
    flipped.write_bytes(
        data[: len(data) // 2] + bytes([data[len(data) // 2] ^ 1]) + data[len(data) // 2 + 1 :]
    )
    _refused_everywhere(flipped, scratch, tmp_path / "m3", "altered or damaged")
    cut = tmp_path / "cut.tar.enc"
    cut.write_bytes(data[:-200])
    _refused_everywhere(cut, scratch, tmp_path / "m4", "altered or damaged|cut short")

    restored = tmp_path / "restored"
    report = backup_restore(sealed, dbname=scratch, media_root=restored)
    assert report["encrypted"] is True
    assert (restored / "big.bin").read_bytes() == (media / "big.bin").read_bytes()


@pytest.mark.parametrize("name", ["LEXROOM_BACKUP_KEY", "LEXROOM_BACKUP_ENCRYPTION_KEY"])
def test_a_short_backup_key_stops_start_up_naming_it(name: str):
    env = {**os.environ, "DEBUG": "1", name: "short-key"}
    env.pop(f"{name}_FILE", None)
    result = subprocess.run(
        [sys.executable, "-c", "import config.settings"],
        cwd=Path(__file__).resolve().parents[2],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert f"{name} must be at least 32 characters" in result.stderr
