"""Ingesting files: originals kept, bad input refused per file, the rest of the batch goes on."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from io import StringIO
from pathlib import Path

import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import translation

from documents.models import Chunk, Document, DocumentStatus, IngestBatch
from documents.services import IngestError, dataroom_store, document_process, document_store
from tests.helpers.contracts import CONTRACT, ingest_command
from tests.helpers.rooms import Room
from workspaces.models import AuditEvent
from workspaces.tenancy import tenant_scope, workspace_scope

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english():
    # Commands and services speak the active language (French by default); the messages below
    # are checked word for word in English.
    with translation.override("en"):
        yield


ROOT = Path(__file__).resolve().parents[2]


def test_text_file_is_stored_chunked_and_embedded(room: Room, tmp_path: Path):
    (tmp_path / "prestation.txt").write_text(CONTRACT)
    output = ingest_command(tmp_path / "prestation.txt")
    assert "1 stored" in output
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        document = Document.objects.get()
        assert document.ref == "c01"
        assert document.status == DocumentStatus.EMBEDDED
        assert document.governing_law == "droit français"
        with default_storage.open(document.original, "rb") as original:
            assert original.read() == CONTRACT.encode()
        headings = list(Chunk.objects.order_by("ordinal").values_list("heading", flat=True))
        assert any(h.startswith("ARTICLE 2") for h in headings)
        assert AuditEvent.objects.filter(action="document.store").count() == 1


def test_same_bytes_twice_is_one_document_without_new_chunks(room: Room, tmp_path: Path):
    (tmp_path / "a.txt").write_text(CONTRACT)
    (tmp_path / "copy of a.txt").write_text(CONTRACT)
    ingest_command(tmp_path / "a.txt")
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        chunk_ids = set(Chunk.objects.values_list("pk", flat=True))
    output = ingest_command(tmp_path / "copy of a.txt")
    assert "0 stored, 1 already present" in output
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        document = Document.objects.get()
        assert document.other_filenames == ["copy of a.txt"]
        assert set(Chunk.objects.values_list("pk", flat=True)) == chunk_ids


def test_bad_files_are_refused_one_by_one_and_the_batch_goes_on(room: Room, tmp_path: Path):
    (tmp_path / "good.txt").write_text(CONTRACT)
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "fake.pdf").write_text("this is not a pdf")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj <<>> garbage")
    (tmp_path / "tool.exe").write_bytes(b"MZ\x90\x00")
    output = ingest_command(tmp_path, expect_exit=1)
    assert "refused" in output
    assert "empty.txt" in output and "fake.pdf" in output and "tool.exe" in output
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        statuses = dict(Document.objects.values_list("filename", "status"))
        assert statuses["good.txt"] == DocumentStatus.EMBEDDED
        # A corrupt PDF is kept (the lawyer sees it) and marked failed with its reason.
        assert statuses["broken.pdf"] == DocumentStatus.FAILED
        assert "fake.pdf" not in statuses and "empty.txt" not in statuses
        batch = IngestBatch.objects.get()
        assert {e["file"] for e in batch.errors} >= {"empty.txt", "fake.pdf", "tool.exe"}


def test_zip_is_expanded_and_unsafe_members_refused(room: Room, tmp_path: Path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("room/contrat.txt", CONTRACT)
        archive.writestr("../evil.txt", "escape attempt")
        archive.writestr("room/notes.md", "# Notes\n\nARTICLE 1 — Objet\nRien.")
    (tmp_path / "room.zip").write_bytes(buffer.getvalue())
    output = ingest_command(tmp_path / "room.zip", expect_exit=1)
    assert "evil.txt" in output
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        documents = {d.filename: d for d in Document.objects.all()}
        assert set(documents) == {"contrat.txt", "notes.md"}
        assert documents["contrat.txt"].archive_path == "room.zip/room/contrat.txt"
        assert documents["contrat.txt"].source == "archive"


def test_oversized_file_is_refused_before_storage(room: Room, settings):
    settings.LEXROOM_MAX_UPLOAD_BYTES = 100
    with tenant_scope(workspace_ids=[room.workspace.pk]), pytest.raises(IngestError) as error:
        document_store(workspace=room.workspace, filename="big.txt", data=b"x" * 101, user=None)
    assert error.value.code == "too_large"


def test_json_that_is_not_a_data_room_gets_a_clear_error(room: Room, tmp_path: Path):
    path = tmp_path / "room.json"
    path.write_text(json.dumps({"not": "a list"}))
    with pytest.raises(Exception, match="non-empty JSON list"):
        call_command("import_dataroom", str(path), "--workspace", "deal-alpha", stdout=StringIO())
    path.write_text(json.dumps([{"title": "no content"}]))
    with pytest.raises(Exception, match="lacks filename, content"):
        call_command("import_dataroom", str(path), "--workspace", "deal-alpha", stdout=StringIO())


def test_unknown_workspace_is_an_error(tmp_path: Path, room: Room):
    (tmp_path / "a.txt").write_text(CONTRACT)
    with pytest.raises(Exception, match="No workspace 'nope'"):
        call_command("ingest", str(tmp_path / "a.txt"), "--workspace", "nope", stdout=StringIO())


def test_failed_document_does_not_block_others_and_is_retried(room: Room, tmp_path: Path):
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj <<>> garbage")
    (tmp_path / "good.txt").write_text(CONTRACT)
    ingest_command(tmp_path, expect_exit=1)
    output = ingest_command(tmp_path / "broken.pdf", expect_exit=1)
    assert "failed" in output
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        assert Document.objects.filter(status=DocumentStatus.EMBEDDED).count() == 1
        assert Document.objects.count() == 2


def test_command_with_an_unloadable_model_fails_with_a_command_error(
    room: Room, tmp_path: Path, settings
):
    settings.LEXROOM_EMBEDDING_MODEL = "lexroom-test/no-such-model"
    (tmp_path / "a.txt").write_text(CONTRACT)
    with pytest.raises(CommandError, match="LEXROOM_EMBEDDING_MODEL"):
        ingest_command(tmp_path / "a.txt")


def test_command_line_shows_an_unloadable_model_as_one_line(tmp_path: Path):
    (tmp_path / "a.txt").write_text(CONTRACT)
    result = subprocess.run(
        [sys.executable, "manage.py", "bench_ingest", "--source", str(tmp_path)],
        cwd=ROOT,
        env={**os.environ, "LEXROOM_EMBEDDING_MODEL": "lexroom-test/no-such-model"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("CommandError: ")
    assert "'lexroom-test/no-such-model'" in lines[0] and "LEXROOM_EMBEDDING_MODEL" in lines[0]


def test_document_over_the_character_limit_is_kept_and_failed_without_chunks(
    room: Room, tmp_path: Path, settings
):
    settings.LEXROOM_MAX_DOCUMENT_CHARS = 100
    (tmp_path / "long.txt").write_text(CONTRACT)
    output = ingest_command(tmp_path / "long.txt", expect_exit=1)
    assert "LEXROOM_MAX_DOCUMENT_CHARS" in output
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        document = Document.objects.get()
        assert document.status == DocumentStatus.FAILED
        assert "characters, more than the 100 allowed" in document.status_reason
        assert "LEXROOM_MAX_DOCUMENT_CHARS" in document.status_reason
        assert not Chunk.objects.exists()
        with default_storage.open(document.original, "rb") as original:
            assert original.read() == CONTRACT.encode()


def test_document_over_the_chunk_limit_is_kept_and_failed_without_chunks(
    room: Room, tmp_path: Path, settings
):
    settings.LEXROOM_MAX_CHUNKS_PER_DOCUMENT = 2  # the contract has a preamble and 3 articles
    (tmp_path / "many.txt").write_text(CONTRACT)
    ingest_command(tmp_path / "many.txt", expect_exit=1)
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        document = Document.objects.get()
        assert document.status == DocumentStatus.FAILED
        assert "LEXROOM_MAX_CHUNKS_PER_DOCUMENT" in document.status_reason
        assert not Chunk.objects.exists()
        assert default_storage.exists(document.original)


def test_reprocessing_under_a_lower_limit_drops_the_earlier_chunks(
    room: Room, tmp_path: Path, settings
):
    (tmp_path / "contrat.txt").write_text(CONTRACT)
    ingest_command(tmp_path / "contrat.txt")
    settings.LEXROOM_MAX_CHUNKS_PER_DOCUMENT = 2
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        document = document_process(
            workspace_id=room.workspace.pk, document_id=Document.objects.get().pk
        )
        assert document.status == DocumentStatus.FAILED
        assert not Chunk.objects.exists()


def test_dataroom_entry_with_an_unusable_contract_id_is_refused_alone(room: Room):
    entry = {"filename": "ok.pdf", "title": "OK", "content": "ARTICLE 1\nTexte."}
    entries = [
        {**entry, "id": "c01"},
        {**entry, "filename": "slash.pdf", "id": "a/b", "content": "ARTICLE 1\nAutre."},
        {**entry, "filename": "long.pdf", "id": "x" * 40, "content": "ARTICLE 1\nEncore."},
    ]
    with translation.override("en"), workspace_scope(room.workspace):
        results = dataroom_store(workspace=room.workspace, entries=entries, user=room.owner)
        stored = list(Document.objects.values_list("ref", flat=True))
    assert stored == ["c01"]
    assert [r.code for r in results] == ["", "bad_contract_id", "bad_contract_id"]
    assert 'the contract id "a/b" is not usable' in (results[1].error or "")
