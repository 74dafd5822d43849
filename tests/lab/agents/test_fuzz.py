"""The fuzz harness (``manage.py fuzz``): a short run in the default suite, the full 10,000
calls and 10,000 uploads marked slow. A 5xx, an exception out of a tool, an upload lost or
crashing fails it (the command exits 1 and says where)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from lab.agents.fuzz._tools import ToolFuzzReport, _Runner
from tests.helpers.rooms import Room

pytestmark = pytest.mark.django_db(transaction=True)


def _fuzz(calls: int, uploads: int) -> dict:
    out = io.StringIO()
    call_command("fuzz", "--calls", str(calls), "--uploads", str(uploads), "--json",
                 stdout=out, stderr=io.StringIO())  # fmt: skip
    return json.loads(out.getvalue())


def test_a_short_fuzz_finds_no_5xx_no_crash_and_loses_nothing():
    # Short: every one of the 16 upload kinds once; `make test-all` runs the long one.
    report = _fuzz(120, 16)
    assert report["ok"], report
    outcomes = report["tools"]["outcomes"]
    assert not any(key.endswith(("5xx", "exception", "exit_other")) for key in outcomes)
    assert outcomes.get("rest:4xx", 0) > 0 and outcomes.get("rest:2xx", 0) > 0
    uploads = report["uploads"]
    assert uploads["nothing_lost"] and uploads["crashes_total"] == 0
    assert uploads["outcomes"].get("failed_silently", 0) == 0
    assert uploads["outcomes"].get("refused_without_reason", 0) == 0
    assert set(uploads["by_kind"]) >= {"zip_bomb", "zip_traversal", "pdf_truncated", "empty"}


def test_the_runner_records_an_exception_instead_of_raising(room: Room, monkeypatch):
    report = ToolFuzzReport()
    runner = _Runner(room.owner, "lxr_invalid", report)

    def broken(name, arguments):
        raise RuntimeError("boom")

    monkeypatch.setattr(runner, "cli", broken)
    runner.call("list_workspaces", {})
    assert report.outcomes == {"cli:exception": 1}
    assert report.failures[0]["error"] == "RuntimeError: boom"


def test_nul_characters_in_arguments_are_refused_as_bad_input(room: Room):
    from agents.tools import ToolError, call_tool

    with pytest.raises(ToolError) as refused:
        call_tool(name="get_contract", arguments={"workspace": "deal-alpha",
                  "contract_id": "c\x0001"}, user=room.owner)  # fmt: skip
    assert refused.value.kind == "invalid_arguments"


@pytest.mark.slow
def test_the_full_fuzz_10000_calls_and_10000_uploads():
    report = _fuzz(10_000, 10_000)
    assert report["ok"], report
    assert report["tools"]["calls"] >= 9_000 and report["uploads"]["uploads"] == 10_000
