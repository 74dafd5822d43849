"""Whether a contract has a clause type: the contract-level bar read on whole validation
contracts, kept with the classifier (package, database), and applied by the rule checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from compliance.articles import Article
from compliance.checks import of_type
from documents.clause_types import Classifier, _shipped
from documents.clause_types._presence import (
    ContractSample,
    contract_scores,
    presence_report,
    presence_thresholds,
)
from documents.clause_types._store import classifier_for, clause_classifier_save
from documents.models import ClauseClassifier

KEYS = ("exclusivity", "governing_law")


def _classifier(presence: list[float] | None = None) -> Classifier:
    return Classifier(
        keys=KEYS,
        weights=np.zeros((4, 2), dtype=np.float32),
        bias=np.asarray([-5.0, -5.0], dtype=np.float32),
        thresholds=np.asarray([0.3, 0.5], dtype=np.float32),
        presence=None if presence is None else np.asarray(presence, dtype=np.float32),
    )


def test_the_bar_is_the_best_f_half_at_or_above_the_tag_threshold():
    # exclusivity: contracts 0-3 have it; two without it score 0.6 and 0.4.
    # governing_law: three have it, every score ties: the tag threshold (the first of the
    # grid with the best score).
    scores = np.asarray(
        [[0.9, 0.6], [0.8, 0.6], [0.7, 0.6], [0.65, 0.6], [0.6, 0.6], [0.4, 0.6]],
        dtype=np.float32,
    )
    truth = np.asarray(
        [[1, 1], [1, 1], [1, 1], [1, 0], [0, 0], [0, 0]],
        dtype=bool,
    )
    tags = np.asarray([0.3, 0.5], dtype=np.float32)
    chosen = presence_thresholds(scores, truth, tags)
    # 0.3: P 4/6 R 1 (F0.5 0.71); 0.45: 4/5 R 1 (0.83); 0.65: 4/4 R 1 (1.0); 0.7: R 3/4.
    assert chosen[0] == pytest.approx(0.65)
    assert chosen[1] == pytest.approx(0.5)
    report = presence_report(KEYS, scores, truth, tags, chosen)
    row = report["per_type"]["exclusivity"]  # type: ignore[index]
    assert (row["precision"], row["recall"], row["precision_at_tag_threshold"]) == (
        1.0,
        1.0,
        pytest.approx(0.667, abs=1e-3),
    )


def test_a_type_too_rare_there_needs_more_than_any_contract_without_it_reached():
    scores = np.asarray([[0.9, 0.5], [0.2, 0.1], [0.62, 0.7]], dtype=np.float32)
    truth = np.asarray([[1, 0], [0, 0], [0, 0]], dtype=bool)
    chosen = presence_thresholds(scores, truth, np.asarray([0.35, 0.35], dtype=np.float32))
    # One contract has the first type: the bar is above the 0.62 of one without it.
    assert chosen[0] == pytest.approx(0.65)
    # None has the second: its bar is above the best any of them reached (0.7).
    assert chosen[1] == pytest.approx(0.75)


def test_a_whole_contract_scores_its_best_article_and_a_heading_that_names_the_type(
    tmp_path: Path,
):
    contract = tmp_path / "c.txt"
    contract.write_text(
        "SUPPLY AGREEMENT\n\n1. EXCLUSIVITY\nThe Supplier sells only to the Buyer.\n\n"
        "2. PRICE\nThe price is fixed in Schedule A.\n"
    )
    scores = contract_scores(
        _classifier(),
        [ContractSample(contract, frozenset({"exclusivity"}))],
        lambda texts: np.zeros((len(texts), 4), dtype=np.float32),
    )
    # The weights say nothing (bias -5): the heading names exclusivity, nothing names law.
    assert scores[0, 0] == 1.0 and scores[0, 1] < 0.01


def _article(chunk_id: int, heading: str, confidence: float) -> Article:
    return Article(
        chunk_id, heading, str(chunk_id), 1, "text", frozenset({"exclusivity"}),
        confidences={"exclusivity": confidence},
    )  # fmt: skip


def test_a_tagged_article_under_the_contract_bar_is_not_the_contracts_clause():
    articles = [_article(1, "Supply", 0.5), _article(2, "Exclusivity", 0.4), _article(3, "", 0.9)]
    presence = {"exclusivity": 0.8}
    assert [a.chunk_id for a in of_type(articles, "exclusivity", presence=presence)] == [2, 3]
    assert [a.chunk_id for a in of_type(articles, "exclusivity")] == [1, 2, 3]


@pytest.mark.django_db
def test_the_bar_is_kept_in_the_package_and_in_the_database(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(_shipped, "SHIPPED_DIR", tmp_path)
    _shipped.shipped_classifier.cache_clear()
    try:
        _shipped.shipped_write(_classifier([0.9, 0.5]), "test-model", {})
        shipped = _shipped.shipped_classifier("test-model")
        assert shipped is not None and shipped.presence_thresholds() == {
            "exclusivity": pytest.approx(0.9),
            "governing_law": pytest.approx(0.5),
        }
    finally:
        _shipped.shipped_classifier.cache_clear()
    clause_classifier_save(
        classifier=_classifier([0.85, 0.6]), embedding_model="test-model", firm_id=None, report={}
    )
    stored = classifier_for(embedding_model="test-model", workspace_id=None)
    assert stored is not None
    assert stored.presence_thresholds()["exclusivity"] == pytest.approx(0.85)
    assert ClauseClassifier.objects.get().presence_thresholds == [0.85, 0.6]
    # A classifier trained without whole contracts: the tags' thresholds.
    assert _classifier().presence_thresholds() == {
        "exclusivity": pytest.approx(0.3),
        "governing_law": pytest.approx(0.5),
    }


@pytest.mark.parametrize(
    ("heading", "key", "named"),
    [
        ("ARTICLE 5 — CESSION", "anti_assignment", True),
        ("12. Assignment", "anti_assignment", True),
        ("ARTICLE 1 — PARTS CÉDÉES", "anti_assignment", False),
        ("CESSION DE PARTS SOCIALES", "anti_assignment", False),
        ("ARTICLE 8 — RÉSILIATION DE PLEIN DROIT", "termination_for_convenience", False),
        ("14. Termination", "termination_for_convenience", False),
        ("14.2 Termination for Convenience", "termination_for_convenience", True),
        ("Intellectual Property", "ip_ownership_assignment", False),
        ("Ownership of Work Product", "ip_ownership_assignment", True),
    ],
)
def test_a_heading_cue_names_the_type_not_the_section_it_sits_in(heading, key, named):
    from documents.clause_types import CUES

    assert bool(CUES[key].search(heading)) is named
