"""eval_segmentation: the parser and chunker measured on CUAD and the Brenalis data room."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from lab.management.commands import eval_segmentation
from tests.helpers.data import shared_data

SUMMARY_KEYS = {
    "contracts",
    "first_chunk_over_half",
    "without_article",
    "articles_per_contract",
    "chunks_per_contract_median",
    "worst",
}


def test_eval_segmentation_on_cuad_reports_the_share_mostly_preamble():
    cuad = shared_data("cuad")
    out = StringIO()
    call_command("eval_segmentation", "--cuad", str(cuad), "--limit", "30", "--json", stdout=out)
    result = json.loads(out.getvalue())
    assert set(result) == SUMMARY_KEYS | {"suite", "seconds"}
    assert result["contracts"] == 30
    over = result["first_chunk_over_half"]
    assert over["count"] == round(over["share"] * 30)
    assert len(result["worst"]) == 15
    # Floors well under the full run's numbers (docs/benchmarks/segmentation.md).
    assert over["share"] <= 0.2
    assert result["articles_per_contract"]["median"] >= 5
    lines = list(eval_segmentation.cuad_lines(result))
    assert lines[0].startswith("CUAD: 30 contracts")


def test_eval_segmentation_on_brenalis_finds_the_written_articles_in_every_form():
    path = shared_data("dataroom-brenalis", "exemple_data_room.json")
    out = StringIO()
    call_command("eval_segmentation", "--suite", "brenalis", "--brenalis", str(path), "--json",
                 stdout=out)  # fmt: skip
    result = json.loads(out.getvalue())
    assert set(result["forms"]) == {"text", "pdf", "pdf_running_lines"}
    for form in result["forms"].values():
        assert form["articles_as_written"] == result["contracts"] == 20
        assert form["running_lines_left"] == 0
        assert form["first_chunk_over_half"]["count"] == 0
    assert result["differing"] == []


def test_eval_segmentation_refuses_a_missing_dataset_naming_its_path(tmp_path):
    with pytest.raises(CommandError, match=str(tmp_path / "cuad")):
        call_command("eval_segmentation", "--cuad", str(tmp_path / "cuad"), "--json")
