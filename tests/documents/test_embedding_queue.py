"""The embedding queue is fair: a small contract never waits behind a huge one."""

from __future__ import annotations

import pytest

from documents.models import Chunk, Document, DocumentStatus
from documents.services import _fair_shares, chunks_embed_pending, document_process
from tests.helpers.contracts import CONTRACT, store_texts
from tests.helpers.rooms import Room
from workspaces.tenancy import tenant_scope

# Titled headings: "ARTICLE 1 — CLAUSE 1" ends like a table of contents' line (its page).
BIG_CONTRACT = "CONTRAT CADRE DE FOURNITURE\n\n" + "\n\n".join(
    f"ARTICLE {number} — LIVRAISON\nLe fournisseur livre le lot {number} dans les délais."
    for number in range(1, 41)
)


def test_fair_shares_take_turns_with_the_fewest_left_first():
    shares = _fair_shares({1: 1000, 2: 10, 3: 100}, limit=256, share=64)
    # Turn 1: 10 + 64 + 64, turn 2: 36 + 64, turn 3: the 18 left of the batch.
    assert shares == {2: 10, 3: 100, 1: 146}
    assert _fair_shares({1: 5}, limit=256, share=64) == {1: 5}
    assert _fair_shares({}, limit=256, share=64) == {}


@pytest.mark.django_db
def test_small_document_queued_after_a_big_one_is_embedded_in_the_next_batch(room: Room):
    batch = store_texts(
        room.workspace, ("cadre.txt", BIG_CONTRACT), ("petit.txt", CONTRACT), user=room.owner
    )
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        big, small = Document.objects.filter(pk__in=batch.document_ids).order_by("pk")
        for document in (big, small):
            document_process(workspace_id=room.workspace.pk, document_id=document.pk)
        assert Chunk.objects.filter(document=big).count() > 16
        embedded = chunks_embed_pending(workspace_id=room.workspace.pk, limit=16)
        small.refresh_from_db()
        assert embedded == 16
        assert small.status == DocumentStatus.EMBEDDED
        assert not Chunk.objects.filter(document=small, embedding__isnull=True).exists()
        assert Chunk.objects.filter(document=big, embedding__isnull=False).exists()
