"""eval_compliance --suite brenalis finds the flags a buyer's lawyer expects, with articles."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from tests.helpers.data import shared_data

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
    # French law governs the commercial lease c06 and the employment contract c17 whatever
    # they say: the required governing-law rule leaves them out, and the notes say so.
    others = {tuple(pair) for pair in report["other_flags"]}
    assert ("c06", "droit-applicable-present") not in others
    assert ("c17", "droit-applicable-present") not in others
    [note] = [n for n in report["not_checked"] if n.startswith("droit-applicable-present")]
    assert "c06" in note and "c17" in note


def test_the_ana_fr_suite_scores_clause_types_and_validity():
    shared_data("ana-fr-clauses", "datasets", "service_contract_sample", "clauses_label.csv")
    out = StringIO()
    call_command("eval_compliance", "--suite", "ana-fr", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["clauses"] == 77 and report["invalid_clauses"] == 28
    # The rules alone, on the dataset's own clause types: most verdicts right, from the data.
    assert report["validity_accuracy_gold_type"] >= 0.85
    cells = report["confusion_gold_type"]
    assert sum(cells.values()) == 77 and cells.get("invalid→flagged", 0) >= 20
    row = next(r for r in report["rows"] if r["id"] == "0060")  # a 90-day notice (R7)
    assert row["valid"] is False and "r7-preavis-max" in row["flags_gold_type"]
