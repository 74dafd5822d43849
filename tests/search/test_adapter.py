"""The firm's search adapter: fitted on judgments it ranks the judged articles better, applied
only for its firm and embedding model, reloaded when retrained, trained by the command with
clear refusals, and a failed training keeps the previous adapter."""

from __future__ import annotations

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from agents.tools import call_tool
from core.embeddings import embedding_model_name
from documents.models import Chunk, Document
from search.learning import FitOptions, FitResult, JudgedQuery, fit_adapter
from search.learning._fit import split_held_out
from search.models import SearchAdapter
from search.ranking import rank_chunks
from search.ranking._adapter import adapt_query_vector
from tests.helpers.contracts import ingest_lease_and_nda
from tests.helpers.rooms import Room
from workspaces.models import AuditEvent
from workspaces.tenancy import firm_scope, workspace_scope

DIMENSION = 16


def _synthetic(queries: int, seed: int) -> list[JudgedQuery]:
    """Relevance is decided by a hidden rotation of the query: the identity ranks the judged
    articles badly, a learnt map can rank them well."""
    rng = np.random.default_rng(seed)
    hidden = np.linalg.qr(np.random.default_rng(99).normal(size=(DIMENSION, DIMENSION)))[0]
    items = rng.normal(size=(300, DIMENSION)).astype(np.float32)
    items /= np.linalg.norm(items, axis=1, keepdims=True)
    judged = []
    for index in range(queries):
        vector = rng.normal(size=DIMENSION).astype(np.float32)
        by_truth = np.argsort(-(items @ (hidden @ vector)))
        chosen = np.concatenate([by_truth[:3], rng.choice(by_truth[3:], 12, replace=False)])
        gains = np.array([1.0] * 3 + [0.0] * 12, dtype=np.float32)
        judged.append(JudgedQuery(f"query {seed}-{index}", vector, items[chosen], gains))
    return judged


def _ndcg(matrix: np.ndarray, queries: list[JudgedQuery]) -> float:
    values = []
    for query in queries:
        adapted = matrix @ query.vector
        order = np.argsort(-(query.items @ adapted))[:10]
        discount = 1 / np.log2(np.arange(2, 12))
        dcg = float((query.gains[order] * discount[: len(order)]).sum())
        ideal = float((np.sort(query.gains)[::-1][:10] * discount[: len(order)]).sum())
        values.append(dcg / ideal)
    return float(np.mean(values))


def test_the_fitted_map_ranks_unseen_judged_queries_better_than_the_identity():
    train, held_out, unseen = _synthetic(60, 1), _synthetic(15, 2), _synthetic(30, 3)
    fit = fit_adapter(train, held_out=held_out, options=FitOptions(learning_rate=0.01))
    identity = np.eye(DIMENSION, dtype=np.float32)
    assert fit.improved and fit.best_epoch > 0
    assert _ndcg(fit.matrix, unseen) > _ndcg(identity, unseen) + 0.15
    summary = fit.summary()
    assert summary["held_out_ndcg@10_after"] > summary["held_out_ndcg@10_before"]


def test_queries_that_teach_no_order_are_left_out_and_the_split_is_stable():
    flat = JudgedQuery("all relevant", np.ones(4), np.eye(4), np.ones(4, dtype=np.float32))
    assert not flat.informative
    with pytest.raises(ValueError, match="no informative"):
        fit_adapter([flat, flat])
    queries = _synthetic(20, 5)
    assert split_held_out(queries, 0.25) == split_held_out(list(reversed(queries)), 0.25)


# --- Applied by the ranking -----------------------------------------------------------------


def _store(room: Room, matrix: np.ndarray, model: str | None = None) -> SearchAdapter:
    """An approved adapter (a candidate is never used: tests/search/test_guarded_learning.py)."""
    adapter, _ = SearchAdapter.objects.update_or_create(
        firm=room.firm,
        embedding_model=model or embedding_model_name(),
        defaults={
            "dimension": matrix.shape[0],
            "weights": matrix.astype(np.float32).tobytes(),
            "judgments": 1,
            "queries": 1,
            "trained_at": timezone.now(),
            "approved_at": timezone.now(),
        },
    )
    return adapter


@pytest.mark.django_db
def test_the_adapter_applies_to_its_firm_and_model_only_and_is_reloaded_when_retrained(
    room: Room, settings
):
    model = embedding_model_name()
    vector = [1.0, 0.0, 0.0]
    swap = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1]], dtype=np.float32)
    _store(room, swap)
    _store(room, -np.eye(3), model="another-model")
    assert adapt_query_vector(workspace_id=room.workspace.pk, model=model, vector=vector) == [
        0.0,
        1.0,
        0.0,
    ]
    foreign = room.foreign_workspace.pk
    assert adapt_query_vector(workspace_id=foreign, model=model, vector=vector) == vector
    assert adapt_query_vector(workspace_id=room.workspace.pk, model="other", vector=vector) == (
        vector
    )
    _store(room, np.eye(3)[[2, 1, 0]])  # retrained
    assert adapt_query_vector(workspace_id=room.workspace.pk, model=model, vector=vector) == [
        0.0,
        0.0,
        1.0,
    ]
    settings.LEXROOM_SEARCH_ADAPTERS = False
    assert adapt_query_vector(workspace_id=room.workspace.pk, model=model, vector=vector) == vector


@pytest.mark.django_db
def test_rank_chunks_searches_with_the_adapted_query_vector(room: Room, settings):
    ingest_lease_and_nda(room.workspace)
    settings.LEXROOM_VECTOR_MIN_SIMILARITY = -1.0

    with workspace_scope(room.workspace):
        # Named documents: the exact scan, so the answer cannot depend on what earlier tests
        # left dead in the shared HNSW index (an index scan gives up after
        # hnsw.max_scan_tuples; CI once saw it return nothing here).
        documents = list(
            Document.objects.filter(workspace=room.workspace).values_list("id", flat=True)
        )

    def similarities() -> dict[int, float]:
        with workspace_scope(room.workspace):
            hits = rank_chunks(
                workspace_id=room.workspace.pk,
                query="loyer annuel",
                document_ids=documents,
                arms=("vector",),
                use_rerank=False,
            )
        return {hit.chunk_id: round(hit.vector_similarity or 0.0, 4) for hit in hits}

    plain = similarities()
    with workspace_scope(room.workspace):
        dimension = Chunk.objects.filter(workspace=room.workspace).first().embedding_dim
    _store(room, -np.eye(dimension))
    flipped = similarities()
    assert plain and flipped == {chunk: -value for chunk, value in plain.items()}


# --- Trained by the command ---------------------------------------------------------------


def _train(*arguments: str) -> dict:
    out = StringIO()
    call_command("train_search_adapter", *arguments, "--json", stdout=out, stderr=StringIO())
    return json.loads(out.getvalue())


def _rate_pairs(room: Room, queries: int) -> None:
    """Each query: one article rated relevant, one not (what the fit can learn an order from)."""
    with workspace_scope(room.workspace):
        chunks = list(Chunk.objects.filter(workspace=room.workspace).values_list("pk", flat=True))
    for index in range(queries):
        for position, relevant in ((index, True), (index + 1, False)):
            call_tool(
                name="rate_result",
                arguments={
                    "workspace": "deal-alpha",
                    "query": f"durée du bail {index}",
                    "chunk_id": chunks[position % len(chunks)],
                    "relevant": relevant,
                },
                user=room.viewer,
            )


@pytest.mark.django_db
def test_the_command_refuses_an_unknown_firm_and_too_few_judgments(room: Room):
    with pytest.raises(CommandError, match="Cabinet Alpha"):
        _train("--firm", "No Such Firm")
    with pytest.raises(CommandError, match=r"no relevance judgments|aucun"):
        _train("--firm", "Cabinet Alpha")
    ingest_lease_and_nda(room.workspace)
    _rate_pairs(room, 3)
    with pytest.raises(CommandError, match=r"\b3\b.*\b8\b"):
        _train("--firm", "Cabinet Alpha")
    assert not SearchAdapter.objects.exists()


@pytest.mark.django_db
def test_a_dry_run_reports_the_fit_and_stores_nothing(room: Room, settings):
    settings.LEXROOM_ADAPTER_MIN_QUERIES = 3
    settings.LEXROOM_ADAPTER_MIN_RATERS, settings.LEXROOM_ADAPTER_MAX_USER_SHARE = 1, 1.0
    ingest_lease_and_nda(room.workspace)
    _rate_pairs(room, 4)
    report = _train("--firm", "Cabinet Alpha", "--dry-run")
    assert report["judgments"] == 8 and report["judged_queries"] == 4
    assert report["raters"] == 1 and report["largest_rater_share"] == 1.0
    assert report["embedding_model"] == embedding_model_name()
    assert report["stored"] is False
    assert report["fit"]["train_queries"] + report["fit"]["held_out_queries"] == 4
    assert not SearchAdapter.objects.exists()


@pytest.mark.django_db
def test_a_good_fit_is_stored_and_audited_and_a_failed_one_keeps_it(
    room: Room, settings, monkeypatch
):
    settings.LEXROOM_ADAPTER_MIN_QUERIES = 3
    settings.LEXROOM_ADAPTER_MIN_RATERS, settings.LEXROOM_ADAPTER_MAX_USER_SHARE = 1, 1.0
    ingest_lease_and_nda(room.workspace)
    _rate_pairs(room, 4)

    def improved(queries, **_kwargs):
        dimension = len(queries[0].vector)
        return FitResult(np.eye(dimension, dtype=np.float32) * 2, True, 3, 10, 3, 1)

    monkeypatch.setattr("search.learning._train.fit_adapter", improved)
    report = _train("--firm", "Cabinet Alpha")
    assert report["stored"] is True
    adapter = SearchAdapter.objects.get(firm=room.firm)
    assert adapter.judgments == 8 and adapter.queries == 4
    with firm_scope(room.firm.pk):
        assert AuditEvent.objects.filter(action="search.adapter_trained").count() == 1

    def broken(queries, **_kwargs):
        raise RuntimeError("out of memory")

    monkeypatch.setattr("search.learning._train.fit_adapter", broken)
    with pytest.raises(RuntimeError):
        _train("--firm", "Cabinet Alpha")
    assert SearchAdapter.objects.get(firm=room.firm).trained_at == adapter.trained_at
