"""Full-text word statistics follow each document as it is chunked, not only batch ends."""

from __future__ import annotations

import pytest

from documents.models import Document, DocumentStatus
from documents.pipeline import run_in_process
from documents.services import document_process
from search import ranking
from search.models import LexemeStat, TextStats
from search.services import text_stats_refresh
from tests.helpers.contracts import CONTRACT, store_texts
from tests.helpers.rooms import Room
from workspaces.tenancy import tenant_scope

pytestmark = pytest.mark.django_db

LEASE = """BAIL COMMERCIAL

Entre la société Zéphyrine Immobilier SAS et la société Gamma Distribution SARL.

ARTICLE 1 — DESTINATION
Les locaux sont destinés au commerce de détail de luminaires.

ARTICLE 2 — LOYER
Le loyer annuel est de quarante mille euros, payable par trimestre.
"""


@pytest.fixture
def indexed(room: Room) -> Room:
    """A workspace whose first contract is embedded and counted (statistics exist)."""
    run_in_process(
        workspace=room.workspace,
        batch=store_texts(room.workspace, ("contrat.txt", CONTRACT), user=room.owner),
    )
    return room


def _chunk_lease(room: Room) -> Document:
    batch = store_texts(room.workspace, ("bail.txt", LEASE), user=room.owner)
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        return document_process(workspace_id=room.workspace.pk, document_id=batch.document_ids[0])


def _statistics(room: Room) -> tuple[dict[str, int], int, float]:
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        lexemes = dict(
            LexemeStat.objects.filter(workspace=room.workspace, chunks__gt=0).values_list(
                "lexeme", "chunks"
            )
        )
        totals = TextStats.objects.get(workspace=room.workspace)
    return lexemes, totals.chunks, round(totals.mean_length, 4)


def test_just_chunked_document_is_found_by_full_text_before_it_is_embedded(indexed: Room):
    lease = _chunk_lease(indexed)
    assert lease.status == DocumentStatus.CHUNKED
    with tenant_scope(workspace_ids=[indexed.workspace.pk]):
        rows = ranking.fts_arm(
            workspace_id=indexed.workspace.pk, query="Zéphyrine", document_ids=None, limit=10
        )
    assert rows and {document_id for _, document_id, _ in rows} == {lease.pk}


def test_statistics_after_chunking_and_rechunking_equal_a_full_recount(indexed: Room):
    lease = _chunk_lease(indexed)
    with tenant_scope(workspace_ids=[indexed.workspace.pk]):
        document_process(workspace_id=indexed.workspace.pk, document_id=lease.pk)
    incremental = _statistics(indexed)
    with tenant_scope(workspace_ids=[indexed.workspace.pk]):
        text_stats_refresh(workspace_id=indexed.workspace.pk)
    assert incremental == _statistics(indexed)


def test_a_document_failed_on_reprocessing_is_counted_out(indexed: Room, settings):
    before = _statistics(indexed)
    lease = _chunk_lease(indexed)
    assert _statistics(indexed) != before
    settings.LEXROOM_MAX_CHUNKS_PER_DOCUMENT = 1
    with tenant_scope(workspace_ids=[indexed.workspace.pk]):
        document_process(workspace_id=indexed.workspace.pk, document_id=lease.pk)
    assert _statistics(indexed) == before
