"""bench_fairness: its hostile PDF is slow to read and small, its report judges the targets,
and (slow) a short live run against a real server, worker and fake case-law site."""

from __future__ import annotations

import io
import json
import os
from io import StringIO

import pypdf
import pytest
from django.core.management import call_command
from django.db import connection
from django.test import override_settings

from lab.agents.bench import hostile_pdf
from lab.agents.bench._abuse import Tally
from lab.agents.bench.fairness import _report


def test_the_hostile_pdf_is_small_and_every_page_draws_one_large_stream():
    data = hostile_pdf(pages=300, operators=20_000)
    reader = pypdf.PdfReader(io.BytesIO(data))
    assert len(data) < 64 * 1024 and len(reader.pages) == 300
    # Every page names the same content stream: a reader parses it once a page.
    contents = {page.raw_get("/Contents").idnum for page in reader.pages}
    assert len(contents) == 1
    assert reader.pages[0].extract_text().count("a") >= 20_000


def _tally(latencies: dict[str, list[float]], statuses: dict[str, int] | None = None) -> Tally:
    tally = Tally()
    tally.latencies = latencies
    tally.statuses.update(statuses or {})
    return tally


def _result(alone: Tally, abused: Tally, abused_upload: float | None) -> dict[str, object]:
    return {"alone": alone, "abused": abused, "abuse": _tally({}),
            "upload_s": {"alone": 1.0, "abused": abused_upload}}  # fmt: skip


def test_the_report_fails_a_target_when_b_slows_down_or_sees_a_5xx():
    alone = _tally({"search": [100.0] * 20, "viewer": [50.0] * 20})
    slowed = _tally({"search": [100.0] * 20, "viewer": [90.0] * 20}, {"viewer:502": 1})
    report = _report(_result(alone, slowed, 3.0), {"nothing_lost": True})
    assert report["p95_ratio"] == {"search": 1.0, "viewer": 1.8}
    assert report["five_xx"]["abused"] == 1
    assert report["met"] == {"ratio_at_most_1_5": False, "no_5xx": False,
                             "b_upload_within_30_s": True, "nothing_lost": True}  # fmt: skip
    assert report["all_met"] is False


def test_the_report_passes_when_b_keeps_its_latency_and_its_upload_is_processed():
    alone = _tally({"search": [100.0] * 20})
    same = _tally({"search": [120.0] * 20}, {"search:ok": 20})
    report = _report(_result(alone, same, 4.0), {"nothing_lost": True})
    assert report["met"]["ratio_at_most_1_5"] and report["all_met"]
    late = _report(_result(alone, same, None), {"nothing_lost": True})
    assert late["met"]["b_upload_within_30_s"] is False


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_short_live_run_reports_both_phases(monkeypatch):
    # The server and worker are other processes: they read this test database, and verify
    # passwords with the production hashers.
    monkeypatch.setenv("LEXROOM_DB_NAME", connection.settings_dict["NAME"])
    monkeypatch.setenv("ALLOWED_HOSTS", "127.0.0.1")
    out = StringIO()
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.PBKDF2PasswordHasher"]):
        call_command("bench_fairness", "--seconds", "4", "--clients", "1", "--streams", "12",
                     "--pdfs", "1", "--case-law", "2", "--workers", "1", "--json",
                     stdout=out, stderr=StringIO())  # fmt: skip
    report = json.loads(out.getvalue())
    assert set(report["b_alone_ms"]) == {"search", "viewer", "mcp_tool", "case_law", "upload"}
    assert report["five_xx"] == {"alone": 0, "abused": 0, "firm_a": 0}
    assert report["nothing_lost"] and report["b_upload_processed_s"]["abused"] is not None
    # The streams over the caps were refused, not held.
    assert report["firm_a_answers"].get("stream_open:429", 0) > 0
    assert os.environ["LEXROOM_DB_NAME"] == connection.settings_dict["NAME"]
