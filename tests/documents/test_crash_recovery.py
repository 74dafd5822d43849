"""Crash recovery with real processes: a worker cluster killed with SIGKILL in the middle of
a batch, then restarted: every document ends processed or failed with a reason, none is left
half-way, no chunk is stored or embedded twice. (The embedded server killed the same way:
tests/test_embedded_db.py.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.db.models import Count

from documents.models import Chunk, Document, DocumentStatus
from documents.pipeline import queue_batch, store_named
from documents.services import batch_create
from tests.helpers.data import TEST_EMBEDDING_MODEL
from tests.helpers.rooms import Room
from workspaces.tenancy import workspace_scope

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = 16
FINAL = {DocumentStatus.EMBEDDED, DocumentStatus.FAILED}


def _contract(n: int) -> bytes:
    return (
        f"CONTRAT DE PRESTATION N° {n}\nEntre Alpha SAS et Client {n} SARL.\n"
        f"ARTICLE 1 - OBJET\nLe prestataire fournit le service numéro {n}.\n"
        f"ARTICLE 2 - PRIX\nLe prix est de {1000 + n} euros par mois.\n"
        f"ARTICLE 3 - DURÉE\nLe contrat dure {n % 5 + 1} ans.\n"
    ).encode()


def _cluster(media: Path, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY": settings.SECRET_KEY,  # the tasks are signed with it
        "DEBUG": "0",
        "LEXROOM_DB_NAME": connection.settings_dict["NAME"],
        "LEXROOM_DATA_DIR": str(settings.LEXROOM_DATA_DIR),
        "LEXROOM_MEDIA_DIR": str(media),
        "LEXROOM_EMBEDDING_MODEL": TEST_EMBEDDING_MODEL,
        "LEXROOM_EMBEDDING_DEVICE": "cpu",
        "LEXROOM_WORKERS": "2",
        "HF_HUB_OFFLINE": "1",
    }
    return subprocess.Popen(
        [sys.executable, "manage.py", "qcluster"],
        cwd=ROOT,
        env=env,
        start_new_session=True,  # its own group: the kill reaches sentinel and workers
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )


def _stop(cluster: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the cluster (it stops its workers), SIGKILL to the group if it lingers."""
    cluster.send_signal(signal.SIGTERM)
    try:
        cluster.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(cluster.pid, signal.SIGKILL)
        cluster.wait()


def _statuses(room: Room) -> list[str]:
    with workspace_scope(room.workspace):
        return list(Document.objects.values_list("status", flat=True))


def _wait(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return False


def test_a_worker_killed_mid_batch_leaves_no_document_stuck(room, tmp_path, settings):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    with workspace_scope(room.workspace):
        results = []
        for n in range(DOCUMENTS):
            results += store_named(
                workspace=room.workspace, name=f"c{n}.txt", data=_contract(n), user=room.owner
            )
        batch = batch_create(workspace=room.workspace, label="crash", results=results, user=None)
    queue_batch(workspace=room.workspace, batch=batch)
    first = _cluster(tmp_path / "media", tmp_path / "first.log")
    try:
        started = _wait(lambda: any(s != DocumentStatus.STORED for s in _statuses(room)), 300)
        log = (tmp_path / "first.log").read_text(errors="replace")[-3000:]
        assert started, f"the worker never started on the batch:\n{log}"
    finally:
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    at_kill = _statuses(room)
    second = _cluster(tmp_path / "media", tmp_path / "second.log")
    try:
        done = _wait(lambda: all(s in FINAL for s in _statuses(room)), 240)
    finally:
        _stop(second)
    log = (tmp_path / "second.log").read_text(errors="replace")[-3000:]
    assert done, f"documents left half-way: {sorted(set(_statuses(room)))}\n{log}"
    with workspace_scope(room.workspace):
        failed = Document.objects.filter(status=DocumentStatus.FAILED)
        assert all(d.status_reason for d in failed)
        chunks = Chunk.objects.filter(document__workspace=room.workspace)
        assert chunks.count() > 0 and not chunks.filter(embedding__isnull=True).exists()
        twice = chunks.values("document_id", "ordinal").annotate(n=Count("id")).filter(n__gt=1)
        assert not twice.exists()
    assert (
        any(s not in FINAL for s in at_kill) or at_kill.count(DocumentStatus.EMBEDDED) < DOCUMENTS
    )
