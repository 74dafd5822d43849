"""eval_compliance --suite brenalis finds the flags a buyer's lawyer expects, with articles."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from tests.conftest import shared_data

pytestmark = pytest.mark.django_db


def test_the_brenalis_suite_finds_every_expected_flag(settings):
    shared_data("dataroom-brenalis", "exemple_data_room.json")
    settings.OLLAMA_URL = "http://127.0.0.1:9"
    out = StringIO()
    call_command("eval_compliance", "--suite", "brenalis", "--json", stdout=out)
    report = json.loads(out.getvalue())
    missing = [check for check in report["checks"] if not check["found"]]
    assert missing == [] and report["found"] == report["expected"] == 7
    assert report["flags"] >= 7 and report["contracts_per_second"] > 0
    assert any("changement-de-controle-consequences" in note for note in report["not_checked"])
