"""eval_compliance --suite cuad and bench_compliance on the first held-out CUAD contracts.

The test database has no trained classifier: chunks are untagged and the heading cues decide,
so these tests prove the mechanics (held-out contracts only, counts read from the annotations,
one shared index, nothing re-encoded), not the issue's target.
"""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from core.embeddings import embedding_model_name
from documents.clause_types import shipped_classifier
from lab.compliance.evals import MAPPED, held_out_filenames
from lab.compliance.evals.cuad import cites_annotation
from tests.helpers.data import shared_data

pytestmark = pytest.mark.django_db

# The first two held-out contracts (cuad-005 Adams Golf, cuad-006 Adaptimmune), as their
# CUAD rows annotate them: both name a governing law and an exclusivity; only Adaptimmune
# caps liability; neither has a non-disparagement clause.
KNOWN_POSITIVES = {"governing_law": 2, "exclusivity": 2, "cap_on_liability": 1,
                   "non_disparagement": 0}  # fmt: skip


def _command(*args: str) -> dict[str, Any]:
    out = StringIO()
    call_command(*args, "--limit", "2", "--json", stdout=out)
    result: dict[str, Any] = json.loads(out.getvalue())
    return result


def test_the_split_is_the_classifier_s_held_out_fifth_of_cuad_contracts() -> None:
    held_out = held_out_filenames(shared_data("cuad", "master_clauses.csv").parent)
    assert len(held_out) == 102  # 20% of CUAD's 510 contracts
    assert "ADAMSGOLFINC_03_21_2005-EX-10.17-ENDORSEMENT AGREEMENT.PDF" in held_out


def test_a_cited_chunk_holds_the_annotation_up_to_whitespace_and_case() -> None:
    chunk = "12. GOVERNING LAW.  This Agreement shall be governed by\nthe laws of Delaware."
    assert cites_annotation(chunk, ["shall be governed by the laws of delaware"])
    assert not cites_annotation(chunk, ["the laws of New York"])


def test_cuad_scores_come_from_the_annotations_and_the_bench_reuses_the_index(settings):
    shared_data("cuad", "master_clauses.csv")
    settings.OLLAMA_URL = "http://127.0.0.1:9"
    report = _command("eval_compliance", "--suite", "cuad")
    assert report["contracts_indexed"] == report["contracts_scored"] == 2
    rows = {row["type"]: row for row in report["categories"]}
    assert set(rows) == set(MAPPED)
    assert {key: rows[key]["positives"] for key in KNOWN_POSITIVES} == KNOWN_POSITIVES
    for row in rows.values():
        assert row["tp"] + row["fn"] == row["positives"]
        assert row["tp"] + row["fp"] == row["flagged"]
        assert 0 <= row["cited_contains_annotation"] <= row["tp"]
    counted = [row["f1"] for row in rows.values() if row["tp"] + row["fp"] + row["fn"]]
    assert report["macro"]["f1"] == pytest.approx(sum(counted) / len(counted), abs=1e-3)
    assert report["detected"] == sum(row["tp"] for row in rows.values())
    assert report["target_met"] is (report["macro"]["f1"] >= 0.75)
    # A fresh install: the classifier shipped for the encoder tags the chunks.
    shipped = shipped_classifier(embedding_model_name())
    assert shipped is not None
    assert report["classifier_version"] == shipped.version and report["chunks_tagged"] > 0

    bench = _command("bench_compliance")
    assert bench["index_reused"] and bench["workspace"] == "eval-cuad-2"
    assert bench["scan"]["contracts"] == bench["rescan"]["contracts"] == 2
    # The position rules' wordings are encoded once each (the articles they read are encoded
    # in a batch of their own, outside this count).
    assert bench["scan"]["encoder_calls"] == bench["position_wordings"] > 0
    assert bench["rescan"]["encoder_calls"] == 0
    assert bench["chunks_pending_embedding"] == {"before": 0, "after": 0}
    shares = bench["scan"]["classify_vs_rules"]
    assert shares["classify"] + shares["rules"] == pytest.approx(1, abs=1e-3)
