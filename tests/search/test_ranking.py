"""The full-text arm: bounded candidate selection, BM25 order, and its index under RLS."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.db_backend.checks import fulltext_index_usable
from search import ranking
from search.ranking import _fulltext, _vector
from tests.helpers.contracts import ingest_entries
from tests.helpers.rooms import Room
from workspaces.tenancy import tenant_scope

pytestmark = pytest.mark.django_db

# Every clause mentions "résiliation"; "préavis" and "écrit" are rarer; one clause has all.
CLAUSES = [
    "ARTICLE 1 — RÉSILIATION\nLa résiliation intervient de plein droit en cas de faute.",
    "ARTICLE 2 — RÉSILIATION ANTICIPÉE\nLa résiliation est possible à tout moment.",
    "ARTICLE 3 — PRÉAVIS\nLa résiliation requiert un préavis de trois mois notifié par écrit.",
    "ARTICLE 4 — FORME\nToute notification se fait par écrit, à l'adresse du siège.",
    "ARTICLE 5 — EFFETS\nLa résiliation ne prive pas les parties de leurs droits acquis.",
]


@pytest.fixture
def clauses(room: Room) -> Room:
    entries = [
        {
            "filename": "contrat.txt",
            "title": "Contrat de prestation",
            "parties": ["Alpha SAS", "Beta SARL"],
            "contract_type": "prestation de services",
            "signature_date": "2024-01-01",
            "governing_law": "droit français",
            "content": "CONTRAT DE PRESTATION\n\n" + "\n\n".join(CLAUSES),
        }
    ]
    ingest_entries(room.workspace, *entries)
    return room


def _headings(room: Room, query: str) -> list[str]:
    from documents.models import Chunk

    with tenant_scope(workspace_ids=[room.workspace.pk]):
        rows = ranking.fts_arm(
            workspace_id=room.workspace.pk, query=query, document_ids=None, limit=10
        )
        headings = dict(Chunk.objects.filter(workspace=room.workspace).values_list("id", "heading"))
    return [headings[chunk_id] for chunk_id, _document_id, _score in rows]


def test_selective_stems_take_the_rarest_within_the_budget(monkeypatch):
    monkeypatch.setattr(_fulltext, "MATCH_BUDGET", 100)
    df = {"resili": 90, "preavis": 20, "ecrit": 30, "contrat": 5000}
    assert _fulltext._selective_stems(list(df), df) == ["preavis", "ecrit"]
    # The rarest word is always kept, even past the budget.
    assert _fulltext._selective_stems(["contrat"], df) == ["contrat"]


def test_clause_with_every_word_ranks_first(clauses: Room):
    headings = _headings(clauses, "résiliation préavis écrit")
    assert headings[0].startswith("ARTICLE 3")
    assert set(headings) >= {"ARTICLE 3 — PRÉAVIS", "ARTICLE 4 — FORME"}


def test_common_words_only_still_find_the_clause_holding_all(clauses: Room, monkeypatch):
    # As in a large workspace where every query word is common: the budget and cap are
    # exceeded, so chunks holding all the words are matched first.
    monkeypatch.setattr(_fulltext, "MATCH_BUDGET", 1)
    monkeypatch.setattr(_fulltext, "CANDIDATE_CAP", 1)
    monkeypatch.setattr(_fulltext, "ENOUGH_ALL_WORDS_HITS", 1)
    assert _headings(clauses, "résiliation préavis écrit") == ["ARTICLE 3 — PRÉAVIS"]


def test_fallback_to_any_word_when_no_chunk_has_them_all(clauses: Room, monkeypatch):
    monkeypatch.setattr(_fulltext, "CANDIDATE_CAP", 1)
    headings = _headings(clauses, "siège faute")
    assert headings  # one chunk has "siège", another "faute": the any-word pass finds one
    assert set(headings) <= {"ARTICLE 1 — RÉSILIATION", "ARTICLE 4 — FORME"}


def test_fulltext_match_uses_the_gin_index_under_row_level_security(clauses: Room):
    assert fulltext_index_usable(connection) is None
    with tenant_scope(workspace_ids=[clauses.workspace.pk]), connection.cursor() as cursor:
        # A workspace big enough for the index to pay: copies of a chunk with filler text.
        cursor.execute(
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_name = 'documents_chunk' AND column_name NOT IN"
            " ('id', 'ordinal', 'search_vector')"
        )
        columns = ", ".join(row[0] for row in cursor.fetchall())
        cursor.execute(
            f"INSERT INTO documents_chunk ({columns}, ordinal, search_vector)"
            f" SELECT {columns}, 1000 + g, to_tsvector('simple', 'filler ' || g)"
            " FROM documents_chunk, generate_series(1, 3000) g"
            " WHERE workspace_id = %s AND ordinal = 0",
            [clauses.workspace.pk],
        )
        cursor.execute("ANALYZE documents_chunk")
        cursor.execute(
            "EXPLAIN SELECT id FROM documents_chunk WHERE workspace_id = %s"
            " AND search_vector @@ 'preavi'::tsquery",
            [clauses.workspace.pk],
        )
        plan = "\n".join(row[0] for row in cursor.fetchall())
    # Without LEAKPROOF on ts_match_vq, RLS keeps @@ out of the index conditions and the plan
    # scans the workspace's rows, filtering each one.
    assert "Bitmap Index Scan on chunk_search_vector_gin" in plan, plan


def test_vector_arm_is_exact_over_few_documents(clauses: Room, monkeypatch):
    from documents.models import Document

    with tenant_scope(workspace_ids=[clauses.workspace.pk]):
        document_ids = list(
            Document.objects.filter(workspace=clauses.workspace).values_list("id", flat=True)
        )
        vector, dimension, model = ranking.embed_query("préavis de résiliation")
        arguments = {
            "workspace_id": clauses.workspace.pk,
            "query_vector": vector,
            "dimension": dimension,
            "model": model,
            "document_ids": document_ids,
            "limit": 10,
        }
        with CaptureQueriesContext(connection) as exact_queries:
            exact = ranking.vector_arm(**arguments)
        monkeypatch.setattr(_vector, "EXACT_VECTOR_MAX_DOCUMENTS", 0)
        with CaptureQueriesContext(connection) as indexed_queries:
            indexed = ranking.vector_arm(**arguments)
    assert exact and [row[0] for row in exact] == [row[0] for row in indexed]
    assert ") + 0 LIMIT" in exact_queries.captured_queries[-1]["sql"]
    # The index is asked first; a workspace this small whose scan came up short (other
    # workspaces' chunks share the index) is then read exactly: the same rows either way.
    nearest = [q["sql"] for q in indexed_queries.captured_queries if "<=>" in q["sql"]]
    assert ") + 0 LIMIT" not in nearest[0]
