"""The seeded calls a benchmark run times: queries, filter combinations, and closures over them."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from core.embeddings import get_encoder
from documents.models import Document, Entity
from lab.search.bench._vocabulary import THEMES
from search.ranking import rank_chunks
from search.selectors.plain import search_data_room
from workspaces.models import Workspace
from workspaces.tenancy import workspace_scope

Call = Callable[[], object]


def make_queries(count: int, seed: int) -> list[str]:
    """Seeded clause-search queries in both languages, from the benchmark's vocabulary."""
    rng = random.Random(seed + 10)  # noqa: S311 - reproducible, not secret
    queries = []
    for _ in range(count):
        theme = rng.choice(THEMES)
        phrases = theme.fr if rng.random() < 0.6 else theme.en
        words = rng.sample(phrases, rng.randint(1, 2))
        if rng.random() < 0.2:
            other = rng.choice(THEMES)
            words.append(rng.choice(other.fr + other.en))
        queries.append(" ".join(words))
    return queries


def make_filters(
    count: int, seed: int, entity_ids: list[int], labels: list[str], laws: list[str]
) -> list[dict[str, Any]]:
    """Seeded filter combinations: one to three of entity, type, law and date windows.

    Values come from the room itself: the tool refuses a type or law no contract has.
    """
    rng = random.Random(seed + 20)  # noqa: S311
    combos: list[dict[str, Any]] = []
    for _ in range(count):
        filters: dict[str, Any] = {}
        for kind in rng.sample(["entity", "type", "law", "signature", "end"], rng.randint(1, 3)):
            if kind == "entity":
                filters["entity_ids"] = [rng.choice(entity_ids)]
            elif kind == "type":
                filters["contract_types"] = rng.sample(labels, min(len(labels), rng.randint(1, 2)))
            elif kind == "law":
                key = "in" if rng.random() < 0.8 else "not_in"
                filters["governing_law"] = {key: [rng.choice(laws)]}
            else:
                after = date(2015, 1, 1) + timedelta(days=rng.randrange(365 * 10))
                before = after + timedelta(days=rng.randint(180, 365 * 4))
                field = "signature_date" if kind == "signature" else "end_date"
                filters[field] = {"after": after.isoformat(), "before": before.isoformat()}
        combos.append(filters)
    return combos


def search_calls(workspace: Workspace, queries: int, seed: int) -> dict[str, list[Call]]:
    """For each measurement, the seeded calls to time (closures over query and filters)."""
    with workspace_scope(workspace):
        entity_ids = list(Entity.objects.filter(workspace=workspace).values_list("id", flat=True))
        documents = Document.objects.filter(workspace=workspace)
        labels = sorted(set(documents.values_list("contract_type", flat=True)) - {""})
        laws = sorted(set(documents.values_list("governing_law", flat=True)) - {""})
    texts = make_queries(queries, seed)
    filters = make_filters(queries, seed, entity_ids, labels, laws)
    ws_id = workspace.pk
    encoder = get_encoder()

    def listing(f: dict[str, Any]) -> Call:
        return lambda: search_data_room(workspace=workspace, filters=f, limit=20)

    def arm(q: str, arms: tuple[str, ...]) -> Call:
        return lambda: rank_chunks(
            workspace_id=ws_id, query=q, document_ids=None, arms=arms, use_rerank=False
        )

    def hybrid(q: str, f: dict[str, Any] | None) -> Call:
        return lambda: search_data_room(workspace=workspace, query=q, filters=f, limit=20)

    def embedding(q: str) -> Call:
        return lambda: encoder.encode_queries([q])

    return {
        "filter_only": [listing(f) for f in filters],
        "fts": [arm(q, ("fts",)) for q in texts],
        "vector": [arm(q, ("vector",)) for q in texts],
        "hybrid": [hybrid(q, None) for q in texts],
        "hybrid_filtered": [hybrid(q, f) for q, f in zip(texts, filters, strict=True)],
        # The encoder itself, uncached: what a query never seen by this process adds.
        "query_embedding": [embedding(q) for q in texts],
    }
