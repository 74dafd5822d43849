"""Clause types: training from labels (a firm's CSV), held-out scores, a failed training that
keeps the previous classifier, tagging at ingestion from stored vectors, a fresh install."""

from __future__ import annotations

import csv
import json
from io import StringIO
from pathlib import Path

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from core.embeddings import embedding_model_name
from documents.clause_types import (
    Classifier,
    _shipped,
    classifier_for,
    family_prior,
    shipped_classifier,
)
from documents.models import Chunk, ClauseClassifier
from tests.helpers.contracts import ingest_entries
from tests.helpers.rooms import Room
from workspaces.tenancy import tenant_scope

pytestmark = pytest.mark.django_db

LABELS = {
    "indemnification": [
        "Supplier shall indemnify, defend and hold harmless Customer from any third-party claim.",
        "Each party shall indemnify the other against losses arising from its negligence.",
        "The Licensee will defend and indemnify the Licensor against all claims and damages.",
        "Vendor agrees to hold Buyer harmless from claims of infringement and indemnify it.",
    ],
    "governing_law": [
        "This Agreement shall be governed by the laws of the State of New York.",
        "The laws of England and Wales govern this Agreement and its interpretation.",
        "This contract is construed in accordance with the laws of the State of Delaware.",
        "All disputes are governed by the laws of California, without regard to conflicts.",
    ],
    "cap_on_liability": [
        "In no event shall either party's total liability exceed the fees paid hereunder.",
        "The aggregate liability of Supplier is limited to the amount paid in the prior year.",
        "Liability under this Agreement shall not exceed one hundred thousand dollars.",
        "Each party's maximum liability is capped at the purchase price of the products.",
    ],
    "": [
        "The parties will meet quarterly to review the marketing plan for the products.",
        "Invoices are payable within thirty days of receipt by wire transfer.",
        "Customer shall provide office space and access to its facilities during the project.",
        "Notices shall be sent by registered mail to the addresses given above.",
    ],
}


def _labels_csv(tmp_path: Path) -> Path:
    path = tmp_path / "labels.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text", "type", "contract"])
        for key, texts in LABELS.items():
            for number, text in enumerate(texts):
                # Five contracts, each with one example of every type.
                writer.writerow([text, key, f"k{number % 5}"])
                writer.writerow([text.replace("the", "this"), key, f"k{(number + 2) % 5}"])
    return path


def _train(tmp_path: Path, *args: str) -> dict:
    out = StringIO()
    with override_settings(LEXROOM_DATA_DIR=tmp_path):
        call_command(
            "train_clause_types", "--labels", str(_labels_csv(tmp_path)), *args, stdout=out
        )
    return json.loads(out.getvalue())


def test_training_from_labels_reports_held_out_scores_and_stores_the_classifier(tmp_path):
    report = _train(tmp_path)
    assert {"per_type", "micro", "macro", "thresholds", "examples"} <= set(report)
    assert report["held_out_split"].startswith("by contract")
    assert report["per_type"]["governing_law"]["support"] > 0
    assert 0.0 <= report["micro"]["f1"] <= 1.0
    stored = ClauseClassifier.objects.get(embedding_model=embedding_model_name(), firm=None)
    assert stored.version == report["version"]
    classifier = classifier_for(embedding_model=embedding_model_name(), workspace_id=None)
    assert classifier is not None and classifier.version == report["version"]


def test_bad_labels_fail_clearly_and_keep_the_previous_classifier(tmp_path):
    before = _train(tmp_path)["version"]
    bad = tmp_path / "bad.csv"
    bad.write_text("text,type\nSome clause text here,no_such_type\n", encoding="utf-8")
    with pytest.raises(
        CommandError, match=r"unknown type 'no_such_type'; allowed: .*indemnification"
    ):
        call_command("train_clause_types", "--labels", str(bad))
    bad.write_text("passage,kind\nx,y\n", encoding="utf-8")
    with pytest.raises(CommandError, match="header must name the columns text and type"):
        call_command("train_clause_types", "--labels", str(bad))
    with pytest.raises(CommandError, match="no such file"):
        call_command("train_clause_types", "--labels", str(tmp_path / "missing.csv"))
    bad.write_bytes("text,type\nClause \xe9\xe9 here,governing_law\n".encode("latin-1"))
    with pytest.raises(CommandError, match="not UTF-8"):
        call_command("train_clause_types", "--labels", str(bad))
    bad.write_text('text,type\n"' + "x" * 200_000 + '",governing_law\n', encoding="utf-8")
    with pytest.raises(CommandError, match="not a readable CSV"):
        call_command("train_clause_types", "--labels", str(bad))
    stored = ClauseClassifier.objects.get(embedding_model=embedding_model_name(), firm=None)
    assert stored.version == before


def test_one_firms_labels_never_become_every_firms_default(room: Room, tmp_path):
    with pytest.raises(CommandError, match="--labels needs --firm"):
        _train(tmp_path)
    assert not ClauseClassifier.objects.exists()
    report = _train(tmp_path, "--firm", room.firm.name)
    stored = ClauseClassifier.objects.get()
    assert stored.firm_id == room.firm.pk and stored.version == report["version"]
    model = embedding_model_name()
    mine = classifier_for(embedding_model=model, workspace_id=room.workspace.pk)
    assert mine is not None and mine.version == report["version"]
    # Elsewhere: the classifier shipped for the encoder, never the firm's.
    shipped = shipped_classifier(model)
    assert shipped is not None and shipped.version != report["version"]
    for workspace_id in (room.foreign_workspace.pk, None):
        other = classifier_for(embedding_model=model, workspace_id=workspace_id)
        assert other is not None and other.version == shipped.version


def _ingest(room: Room, text: str) -> None:
    ingest_entries(
        room.workspace, {"filename": "c.txt", "title": "Supply agreement", "content": text}
    )


CONTRACT = (
    "SUPPLY AGREEMENT\n\n"
    "ARTICLE 1 — INDEMNIFICATION\nSupplier shall indemnify, defend and hold harmless Customer "
    "from any third-party claim arising from the products.\n\n"
    "ARTICLE 2 — GOVERNING LAW\nThis Agreement shall be governed by the laws of the State of "
    "New York.\n"
)


def test_a_fresh_install_tags_with_the_classifier_shipped_for_its_encoder(room: Room):
    assert not ClauseClassifier.objects.exists()
    _ingest(room, CONTRACT)
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        tagged = dict(
            Chunk.objects.filter(workspace=room.workspace).values_list(
                "heading", "clause_type_keys"
            )
        )
    law = next(keys for heading, keys in tagged.items() if "GOVERNING" in heading)
    indemnity = next(keys for heading, keys in tagged.items() if "INDEMNIF" in heading)
    assert "governing_law" in law and "indemnification" in indemnity


def test_an_encoder_none_ships_for_ingests_without_clause_types(room: Room, monkeypatch):
    monkeypatch.setattr(_shipped, "SHIPPED_DIR", _shipped.SHIPPED_DIR / "none-here")
    _shipped.shipped_classifier.cache_clear()
    try:
        _ingest(room, CONTRACT)
    finally:
        _shipped.shipped_classifier.cache_clear()
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        chunks = list(Chunk.objects.filter(workspace=room.workspace))
    assert chunks and all(c.embedding is not None for c in chunks)
    assert all(c.clause_types == {} and c.clause_type_keys == [] for c in chunks)


def test_ingestion_tags_chunks_from_their_stored_vectors(room: Room, tmp_path):
    _train(tmp_path, "--firm", room.firm.name)
    _ingest(room, CONTRACT)
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        tagged = dict(
            Chunk.objects.filter(workspace=room.workspace).values_list(
                "heading", "clause_type_keys"
            )
        )
    law = next(keys for heading, keys in tagged.items() if "GOVERNING" in heading)
    indemnity = next(keys for heading, keys in tagged.items() if "INDEMNIF" in heading)
    assert "governing_law" in law
    assert "indemnification" in indemnity  # the heading cue alone would decide it
    assert "indemnification" not in law


def test_retraining_retags_existing_chunks(room: Room, tmp_path):
    _train(tmp_path, "--firm", room.firm.name)
    _ingest(room, CONTRACT)
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        Chunk.objects.filter(workspace=room.workspace).update(
            clause_types={}, clause_type_keys=[], clause_types_version="old"
        )
    report = _train(tmp_path, "--firm", room.firm.name, "--retag")
    assert report["retagged_chunks"] >= 2
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        versions = set(
            Chunk.objects.filter(workspace=room.workspace).values_list(
                "clause_types_version", flat=True
            )
        )
    assert versions == {report["version"]}


def test_stored_weights_round_trip_and_cues_raise_a_type_to_tagged():
    rng = np.random.default_rng(0)
    classifier = Classifier(
        keys=("indemnification", "governing_law"),
        weights=rng.normal(size=(4, 2)).astype(np.float32),
        bias=np.asarray([-5.0, -5.0], dtype=np.float32),
        thresholds=np.asarray([0.7, 0.5], dtype=np.float32),
    )
    again = Classifier.from_stored(classifier.keys, classifier.to_bytes(), [0.7, 0.5])
    assert again.version == classifier.version
    texts = ["Indemnification.", "Payment terms"]
    probabilities = classifier.probabilities(np.zeros((2, 4), dtype=np.float32), texts)
    classifier.with_cues(probabilities, texts)
    tags = classifier.tags(probabilities)
    assert list(tags[0]) == ["indemnification"] and tags[1] == {}


def test_family_prior_rewards_a_chunk_of_the_querys_family():
    query = {"limitation_of_liability": 0.9, "indemnification": 0.1}
    assert family_prior(query, {"limitation_of_liability": 0.8}) == pytest.approx(0.72)
    assert family_prior(query, {"limitation_of_liability": 0.1, "indemnification": 0.9}) == (
        pytest.approx(0.09)
    )
    assert family_prior(query, {"governing_law": 0.9}) == 0.0
    assert family_prior({}, {"governing_law": 0.9}) == 0.0
    # A preamble matching a query that looks like a title is no evidence of its topic.
    assert family_prior({"general": 0.9}, {"general": 0.9}) == 0.0
