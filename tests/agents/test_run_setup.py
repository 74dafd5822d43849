"""run_setup (what `make run` runs before serving): each step named, a line every few seconds
while one runs, the timings at the end; the codes' embedding queued, never waited for."""

from __future__ import annotations

import time
from io import StringIO

import pytest
from django.utils import translation

from agents.management.commands import run_setup
from sources.models import CodeEmbedding, EmbeddingStatus
from tests.helpers.commands import run_command
from tests.sources.factories import import_demo

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english():
    with translation.override("en"):
        yield


def test_run_setup_names_and_times_each_step_and_queues_the_embedding(
    monkeypatch, django_capture_on_commit_callbacks
):
    import_demo()  # a code already imported (a second `make run`), not embedded
    monkeypatch.setattr(run_setup, "HEARTBEAT_S", 0.05)
    with django_capture_on_commit_callbacks() as queued:
        out = run_command("run_setup", "--no-code")
    for step in ("[migrate]", "[demo]", "[embedding]", "demo: done in"):
        assert step in out
    assert "… demo:" in out  # the demo's import takes longer than a heartbeat
    assert "Set up in" in out and "migrate " in out.rsplit("Set up in", 1)[1]
    assert "demo@lexroom.local" in out
    assert "embed_legal_codes --wait" in out
    assert CodeEmbedding.objects.get().status == EmbeddingStatus.QUEUED
    assert len(queued) == 2  # the demo contracts' embedding and the code's


def test_the_heartbeat_writes_while_a_step_runs_and_stops_after():
    out = StringIO()
    with run_setup.heartbeat(out, "slow", every=0.02):
        time.sleep(0.1)
    written = out.getvalue().count("… slow:")
    assert written >= 2
    time.sleep(0.05)
    assert out.getvalue().count("… slow:") == written
