"""Fixtures for the workspaces tests: a firm admin and their client; commands run in English;
a room with a processed contract and a token, a scratch database and the keys for backups."""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import psycopg
import pytest
from django.test import Client
from django.utils import translation
from psycopg import sql
from pytest_django.fixtures import Settings

from tests.helpers.contracts import ingest_files
from tests.helpers.rooms import Room, login
from workspaces import backup
from workspaces.backup import target
from workspaces.models import User
from workspaces.tokens import token_create

CONTRACT = (
    "CONTRAT DE BAIL\nEntre SCI Alpha et Beta SARL.\nARTICLE 1 - DURÉE\nNeuf ans.\n"
    "ARTICLE 2 - LOYER\nDouze mille euros par an.\n"
)
BACKUP_KEY = "backup-signing-key-for-tests-0123456789"


@pytest.fixture
def firm_admin(room: Room) -> User:
    room.owner.is_firm_admin = True
    room.owner.save()
    return room.owner


@pytest.fixture
def firm_admin_client(firm_admin: User) -> Client:
    return login(firm_admin)


@pytest.fixture
def english() -> Iterator[None]:
    # Commands speak LANGUAGE_CODE (French); the tests check their messages word for word.
    with translation.override("en"):
        yield


@pytest.fixture
def backup_key(settings: Settings) -> str:
    """The install's backup signing key (no encryption unless a test sets one)."""
    settings.LEXROOM_BACKUP_KEY = BACKUP_KEY
    settings.LEXROOM_BACKUP_ENCRYPTION_KEY = ""
    return BACKUP_KEY


@pytest.fixture
def filled(room: Room) -> Room:
    """The room with one processed contract (its original, chunks, embeddings) and a token."""
    ingest_files(room.workspace, {"bail.txt": CONTRACT}, user=room.owner)
    token_create(user=room.owner, name="backup test")
    return room


@pytest.fixture
def scratch() -> Iterator[str]:
    """The name of a database to restore into, dropped afterwards."""
    name = f"restore_{uuid.uuid4().hex[:10]}"
    yield name
    admin = psycopg.conninfo.conninfo_to_dict(target(name).conninfo)
    with psycopg.connect(**{**admin, "dbname": "postgres"}, autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


@pytest.fixture
def kept_restore_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder under which restore's temporary folders are made and kept (removed, they
    would hide what a refused restore wrote): a test measures what was extracted."""
    kept = tmp_path / "restore-work"
    kept.mkdir()

    @contextmanager
    def folder(**_options: str) -> Iterator[str]:
        yield tempfile.mkdtemp(dir=kept)

    monkeypatch.setattr(backup, "tempfile", SimpleNamespace(TemporaryDirectory=folder))
    return kept
