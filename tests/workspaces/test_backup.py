"""Backup and restore: the round trip brings back every table's rows (same counts, same
checksums: workspaces, documents, chunks and their embeddings, token hashes, audit rows) and
every original (same SHA-256); restores refuse a database or a folder that is not empty, an
archive tampered with, and a member pointing outside its folder."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from workspaces.backup import BackupError, backup_restore, backup_write, table_digest, target

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("backup_key", "english"),
]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_backup_restores_every_row_and_original(filled, scratch, tmp_path):
    archive = tmp_path / "lexroom.tar"
    manifest = backup_write(archive)
    tables = manifest["tables"]
    for table in ("workspaces_workspace", "documents_document", "documents_chunk",
                  "workspaces_personaltoken", "workspaces_auditevent"):  # fmt: skip
        assert tables[table]["rows"] > 0, table
    media = tmp_path / "restored-media"
    report = backup_restore(archive, dbname=scratch, media_root=media)
    assert report["rows"] == sum(t["rows"] for t in tables.values())
    restored = table_digest(target(scratch).conninfo)
    assert restored == tables  # counts and row checksums, table by table
    with psycopg.connect(target(scratch).conninfo) as conn:
        embedded = conn.execute(
            "SELECT count(*) FROM documents_chunk WHERE embedding IS NOT NULL"
        ).fetchone()
        hashes = conn.execute("SELECT token_hash FROM workspaces_personaltoken").fetchall()
    assert embedded and embedded[0] > 0 and hashes
    originals = Path(settings.MEDIA_ROOT)
    for name, digest in manifest["members"].items():
        if name.startswith("media/"):
            relative = Path(name).relative_to("media")
            assert _sha(media / relative) == digest == _sha(originals / relative)


def test_restore_refuses_a_database_or_folder_that_is_not_empty(filled, tmp_path):
    archive = tmp_path / "lexroom.tar"
    backup_write(archive)
    with pytest.raises(BackupError, match="already holds"):
        backup_restore(archive, dbname=connection.settings_dict["NAME"], media_root=tmp_path / "m")
    full = tmp_path / "full"
    full.mkdir()
    (full / "x.pdf").write_bytes(b"%PDF")
    with pytest.raises(BackupError, match="already holds files"):
        backup_restore(archive, media_root=full)
    with pytest.raises(BackupError, match="never overwrites"):
        backup_write(archive)


def _rewritten(source: Path, destination: Path, change) -> None:
    with tarfile.open(source) as old, tarfile.open(destination, "w") as new:
        for member in old.getmembers():
            data = old.extractfile(member).read()
            member, data = change(member, data)
            member.size = len(data)
            new.addfile(member, io.BytesIO(data))


def test_restore_refuses_a_tampered_archive_or_a_path_outside(filled, scratch, tmp_path):
    archive = tmp_path / "lexroom.tar"
    backup_write(archive)

    def corrupt(member, data):
        return member, data[:-1] + b"x" if member.name.startswith("media/") else data

    tampered = tmp_path / "tampered.tar"
    _rewritten(archive, tampered, corrupt)
    with pytest.raises(BackupError, match="checksum differs"):
        backup_restore(tampered, dbname=scratch, media_root=tmp_path / "m1")

    def escape(member, data):
        if member.name.startswith("media/"):
            member.name = "../../etc/evil"
        return member, data

    outside = tmp_path / "outside.tar"
    _rewritten(archive, outside, escape)
    with pytest.raises(BackupError, match="outside"):
        backup_restore(outside, dbname=scratch, media_root=tmp_path / "m2")
    assert not (tmp_path / "m2").exists()


def test_the_commands_report_and_refuse_plainly(filled, scratch, tmp_path):
    out = io.StringIO()
    call_command("backup", str(tmp_path / "b.tar"), "--json", stdout=out)
    assert json.loads(out.getvalue())["tables"]["documents_document"]["rows"] >= 1
    with pytest.raises(CommandError, match="no such file"):
        call_command("restore", str(tmp_path / "missing.tar"))
    report = io.StringIO()
    call_command("restore", str(tmp_path / "b.tar"), "--database", scratch,
                 "--media-root", str(tmp_path / "m"), "--json", stdout=report)  # fmt: skip
    assert json.loads(report.getvalue())["database"] == scratch
