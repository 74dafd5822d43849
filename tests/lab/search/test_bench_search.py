"""The search benchmark: its JSON contract on a small synthetic room, its clean-up, its limits."""

from __future__ import annotations

import hashlib
import json
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from documents.models import Chunk
from lab.management.commands.bench_search import result_lines
from lab.search.bench import (
    MEASURED,
    SentencePool,
    hnsw_index_name,
    make_filters,
    make_queries,
    make_topics,
    plan_data_room,
)
from tests.helpers.data import TEST_EMBEDDING_MODEL
from workspaces.models import Firm, Workspace
from workspaces.tenancy import tenant_scope

SUMMARY_KEYS = {"p50", "p95", "p99", "mean"}


def _run(*args: str) -> dict[str, Any]:
    out = StringIO()
    call_command("bench_search", *args, "--json", stdout=out, stderr=StringIO())
    result: dict[str, Any] = json.loads(out.getvalue())
    assert all(isinstance(line, str) for line in result_lines(result))  # the human form too
    return result


@pytest.mark.django_db
def test_small_run_reports_every_latency_and_removes_its_workspace() -> None:
    result = _run("--contracts", "50", "--chunks-per-contract", "10", "--queries", "10")

    assert {"contracts", "chunks", "dimension", "model", "generate_s", "index_build_s"} <= set(
        result
    )
    assert {"latency_ms", "targets", "explain"} <= set(result)
    assert (result["contracts"], result["chunks"]) == (50, 500)
    assert (result["model"], result["dimension"]) == (TEST_EMBEDDING_MODEL, 384)
    assert result["generate_s"] > 0
    assert set(result["index_build_s"]) == {"gin", "hnsw", "text_stats"}
    assert all(seconds > 0 for seconds in result["index_build_s"].values())

    latency = result["latency_ms"]
    assert set(latency) == {*MEASURED, "query_embedding"}
    for name, summary in latency.items():
        if name == "hybrid_rerank" and "skipped" in summary:
            continue  # the reranker is not shipped offline
        assert set(summary) >= SUMMARY_KEYS, name
        assert all(isinstance(summary[key], float) and summary[key] > 0 for key in SUMMARY_KEYS), (
            name
        )
        assert summary["p50"] <= summary["p95"] <= summary["p99"], name
    assert set(result["targets"]["met"]) == {"filter_only_p95", "hybrid_p50", "hybrid_p95"}
    assert result["explain"]["arm"] in MEASURED
    assert result["explain"]["plan"]

    # Deleted afterwards: no workspace, no chunks, and no firm left behind for it.
    assert not Workspace.objects.filter(slug="bench-search-50x10-42").exists()
    assert not Firm.objects.filter(name="Lexroom Bench").exists()
    with tenant_scope(workspace_ids=Workspace.objects.values_list("id", flat=True)):
        assert not Chunk.objects.exists()


@pytest.mark.django_db
def test_indexes_are_rebuilt_with_their_definitions() -> None:
    _run("--contracts", "5", "--chunks-per-contract", "2", "--queries", "2")

    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE indexname = ANY(%s)",
            [["chunk_search_vector_gin", hnsw_index_name(384)]],
        )
        definitions = dict(cursor.fetchall())
    assert "USING gin (search_vector)" in definitions["chunk_search_vector_gin"]
    assert "WHERE (embedding_dim = 384)" in definitions[hnsw_index_name(384)]


@pytest.mark.django_db
def test_kept_workspace_is_reused_without_generating_again() -> None:
    args = ("--contracts", "4", "--chunks-per-contract", "3", "--queries", "2")
    first = _run(*args, "--keep")
    second = _run(*args, "--reuse")

    assert first["reused"] is False
    assert second["reused"] is True
    assert second["generate_s"] is None
    workspace = Workspace.objects.get(slug="bench-search-4x3-42")
    with tenant_scope(workspace_ids=[workspace.pk]):
        assert Chunk.objects.filter(workspace=workspace).count() == 12
    with pytest.raises(CommandError, match="--reuse"):
        _run(*args)


@pytest.mark.parametrize(
    ("contracts", "per_contract", "message"),
    [
        ("0", "10", "positive"),
        ("10", "-1", "positive"),
        ("100000", "100", "more than the 5000000"),
    ],
)
def test_bad_sizes_are_refused(contracts: str, per_contract: str, message: str) -> None:
    with pytest.raises(CommandError, match=message):
        call_command(
            "bench_search", "--contracts", contracts, "--chunks-per-contract", per_contract
        )


def test_queries_and_filters_are_seeded() -> None:
    assert make_queries(5, 7) == make_queries(5, 7)
    assert make_queries(5, 7) != make_queries(5, 8)
    room = ([1, 2, 3], ["bail commercial", "franchise"], ["droit français"])
    assert make_filters(5, 7, *room) == make_filters(5, 7, *room)


def test_the_room_of_a_seed_is_unchanged_text_for_text() -> None:
    # Benchmark numbers are compared across runs and versions: the vocabulary (a data file
    # read by position) must not be reordered, nor the draws of the generator. The digest
    # is the one the generator gave before its vocabulary moved to vocabulary.json.
    plan = plan_data_room(contracts=40, chunks_per_contract=3, seed=42)
    topics = make_topics(42)
    pool = SentencePool.build(topics, 42)
    generated = (plan, topics, sorted(pool.sentences.items()), make_queries(20, 42))
    digest = hashlib.sha256(repr(generated).encode()).hexdigest()
    assert digest == "f75ef3c34248c9ff7b3cf09f01878a72794eb3a8f15778e0835ec2ae72dcf817"
