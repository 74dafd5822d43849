"""The legal evals and bench: metrics on hand-computed cases, suites on tiny invented codes,
the command's refusals and JSON, and the DataFiller BM25 reference on the shared data."""

from __future__ import annotations

import datetime as dt
import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from lab.sources.evals.datafiller import (
    DatafillerQuery,
    bm25s_rankings,
    cdt_number,
    load_queries,
    read_corpus,
    run_datafiller,
    score_rankings,
)
from lab.sources.evals.legirag import note_mentions
from lab.sources.evals.lookup import number_spellings, run_lookup
from sources.importing import CodeRecord, VersionRecord
from sources.models import LegalCode
from sources.services import code_import
from tests.helpers.data import shared_data

# Invented texts: nothing here comes from a dataset.
TRAVAIL = {
    "L1111-1": "Le salarié perçoit une prime de vacances versée chaque été par le patron.",
    "L1111-2": "La cantine de l'entreprise sert un repas chaud aux apprentis le midi.",
    "R1111-3": "Le vestiaire des ateliers ferme à vingt heures les jours ouvrables.",
}
CIVIL = {
    "1001": "Le jardinier répond des dommages causés par ses tondeuses.",
    "1002": "Le propriétaire d'un pigeonnier en assure l'entretien.",
}


def _version(number: str, text: str, position: int) -> VersionRecord:
    return VersionRecord(
        number=number,
        article_key=number,
        version_key=f"{number}@origin",
        state="VIGUEUR",
        valid_from=None,
        valid_to=None,
        text=text,
        position=position,
    )


def _code(slug: str, title: str, texts: dict[str, str]) -> None:
    versions = [_version(n, t, i) for i, (n, t) in enumerate(texts.items())]
    record = CodeRecord(slug=slug, title=title, source_format="codes-jsonl", versions=versions)
    code_import(record=record, snapshot_date=dt.date(2024, 1, 1))


@pytest.fixture
def tiny_codes(db) -> list[LegalCode]:
    _code("code-du-travail", "Code du travail", TRAVAIL)
    _code("code-civil", "Code civil", CIVIL)
    return list(LegalCode.objects.order_by("slug"))


@pytest.fixture
def tiny_data(tmp_path: Path) -> Path:
    """A data folder in the shared layout, with invented requests and articles."""
    (tmp_path / "fr-codes").mkdir()
    lines = [
        json.dumps(
            {
                "code": "code-du-travail",
                "code_title": "Code du travail",
                "article": n,
                "path": [],
                "text": t,
            },
            ensure_ascii=False,
        )
        for n, t in TRAVAIL.items()
    ]
    (tmp_path / "fr-codes" / "code-du-travail.jsonl").write_text("\n".join(lines) + "\n")
    requests = [
        {
            "title": "prime",
            "variants": ["prime de vacances", "prime été"],
            "refs": [
                {"url": "/code-du-travail/l1111-1"},
                {"url": "/fiche-service-public/x"},
                {"url": "/code-du-travail/l9999-9"},
            ],
        },
        {
            "title": "cantine",
            "variants": ["repas cantine apprentis"],
            "refs": [{"url": "/code-du-travail/l1111-2"}],
        },
        {"title": "autre", "variants": ["sans article"], "refs": [{"url": "/outils/y"}]},
    ]
    (tmp_path / "datafiller").mkdir()
    (tmp_path / "datafiller" / "requests.json").write_text(json.dumps(requests))
    return tmp_path


def test_recall_is_of_the_relevant_set_and_hit_counts_any_relevant() -> None:
    queries = [
        DatafillerQuery("a", frozenset({"L1", "L2"})),
        DatafillerQuery("b", frozenset({"L3"})),
    ]
    rankings = [["L9", "L1", "L8"], ["L3"]]
    metrics = score_rankings(rankings, queries)
    # Query a: one of two relevant in the top 10, first at rank 2; query b: found first.
    assert metrics["R@1"] == pytest.approx((0 + 1) / 2)
    assert metrics["R@10"] == pytest.approx((0.5 + 1) / 2)
    assert metrics["hit@10"] == pytest.approx(1.0)
    assert metrics["MRR@10"] == pytest.approx((0.5 + 1) / 2)


def test_mrr_at_10_ignores_a_relevant_article_ranked_eleventh() -> None:
    query = DatafillerQuery("a", frozenset({"L11"}))
    ranking = [f"L{i}" for i in range(1, 12)]
    assert score_rankings([ranking], [query])["MRR@10"] == 0.0


def test_datafiller_refs_resolve_to_stored_numbers_and_unknown_ones_are_counted() -> None:
    assert cdt_number("/code-du-travail/l3221-3") == "L3221-3"
    assert cdt_number("/fiche-service-public/salaire") is None
    groups = [
        {
            "variants": ["x", "y"],
            "refs": [{"url": "/code-du-travail/l1"}, {"url": "/code-du-travail/l2"}],
        },
        {"variants": ["z"], "refs": [{"url": "/code-du-travail/l3"}]},
    ]
    queries, unresolved, used = load_queries(groups, known={"L1"})
    assert [q.text for q in queries] == ["x", "y"]
    assert queries[0].relevant == frozenset({"L1"})
    assert unresolved == ["L2", "L3"]
    assert used == 1


def test_numbers_are_spelled_three_ways_and_labels_as_stored() -> None:
    assert number_spellings("L1234-5") == ["L1234-5", "L. 1234-5", "article L 1234-5"]
    assert number_spellings("1240") == ["1240", "art. 1240", "Article 1240"]
    assert number_spellings("LO141-1")[1] == "L.O. 141-1"
    assert number_spellings("Annexe I") == ["Annexe I"]


def test_legirag_notes_name_codes_and_numbers_in_order() -> None:
    note = (
        "code-de-la-route L223-7 renvoie vers code pénal 226-21 et 226-22 - vérifié le 2014-01-10."
    )
    assert note_mentions(note) == [
        ("code-de-la-route", "L223-7"),
        ("code pénal", "226-21"),
        ("code pénal", "226-22"),
    ]
    assert note_mentions("code général des impôts, article 197.") == [
        ("code général des impôts", "197")
    ]
    assert note_mentions("code du travail, non chargé") == []


def test_lookup_finds_every_article_of_the_tiny_codes(tiny_codes) -> None:
    report = run_lookup(tiny_codes)
    assert report["asked"] == 3 * (len(TRAVAIL) + len(CIVIL))
    assert report["found_share"] == 1.0
    assert report["failures"] == []
    assert report["passed"]


def test_datafiller_scores_fts_and_the_bm25s_reference_on_invented_data(
    tiny_codes, tiny_data
) -> None:
    report = run_datafiller(tiny_data, modes=["fts"])
    assert report["queries"] == 3
    assert report["groups"] == 2
    assert report["unresolved_refs"] == 1
    assert set(report["arms"]) == {"bm25s", "fts"}
    assert report["arms"]["fts"]["R@10"] == 1.0
    assert report["arms"]["bm25s"]["hit@10"] == 1.0


def test_eval_legal_json_is_one_object(tiny_codes, tiny_data) -> None:
    out = StringIO()
    call_command(
        "eval_legal",
        "--suite",
        "lookup",
        "--json",
        "--data-dir",
        str(tiny_data),
        stdout=out,
        stderr=StringIO(),
    )
    report = json.loads(out.getvalue())
    assert report["suite"] == "lookup"
    assert report["found_share"] == 1.0


def test_eval_legal_refuses_an_unknown_suite() -> None:
    with pytest.raises(CommandError, match="invalid choice"):
        call_command("eval_legal", "--suite", "nope")


def test_eval_legal_refuses_a_missing_data_dir(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no such data folder"):
        call_command("eval_legal", "--suite", "lookup", "--data-dir", str(tmp_path / "absent"))


@pytest.mark.django_db
def test_eval_legal_says_which_import_to_run_when_the_code_is_missing(tiny_data) -> None:
    with pytest.raises(CommandError, match=r"import_legal_codes .*code-du-travail\.jsonl"):
        call_command("eval_legal", "--suite", "datafiller", "--data-dir", str(tiny_data))


@pytest.mark.slow
@pytest.mark.django_db
def test_datafiller_bm25s_reference_reproduces_the_readme() -> None:
    corpus_path = shared_data("fr-codes", "code-du-travail.jsonl")
    groups = json.loads(shared_data("datafiller", "requests.json").read_text(encoding="utf-8"))
    corpus = read_corpus(corpus_path)
    queries, _, _ = load_queries(groups, known={number for number, _ in corpus})
    rankings, _ = bm25s_rankings(corpus, queries)
    metrics = score_rankings(rankings, queries)
    assert len(queries) == 2771
    assert metrics["R@10"] == pytest.approx(0.187, abs=0.002)
    assert metrics["MRR@10"] == pytest.approx(0.213, abs=0.002)


def test_percentiles_of_a_known_sample() -> None:
    from lab.sources.bench import percentiles

    stats = percentiles([float(i) for i in range(1, 101)])
    assert stats == {"p50_ms": 50.5, "p95_ms": 95.0, "max_ms": 100.0}


@pytest.mark.slow
def test_bench_import_leaves_the_stored_library_as_found(tiny_codes, tiny_data) -> None:
    from lab.sources.bench import run_bench
    from sources.models import ArticleVersion

    before = sorted(ArticleVersion.objects.values_list("code__slug", "number", "text"))
    result = run_bench(tiny_data, queries=2, embed=False, note=lambda message: None)
    assert result["import"]["versions"] == len(TRAVAIL)
    assert result["get_article"]["calls"] == 2
    assert sorted(ArticleVersion.objects.values_list("code__slug", "number", "text")) == before
    assert not LegalCode.objects.filter(slug__startswith="bench-").exists()
