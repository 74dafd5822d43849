"""The queued path (what workers run) and re-embedding when the model changes."""

from __future__ import annotations

import pytest
from django_q.conf import Conf

from core.embeddings import resolve_model_path
from documents.models import Chunk, Document, DocumentStatus, Entity
from documents.pipeline import queue_batch, run_in_process
from documents.services import (
    entity_merge,
    entity_split_alias,
)
from tests.helpers.contracts import AMENDMENT, CONTRACT, store_texts
from tests.helpers.data import TEST_EMBEDDING_MODEL
from tests.helpers.rooms import Room
from workspaces.tenancy import tenant_scope

pytestmark = pytest.mark.django_db


def test_queued_batch_runs_process_then_embed_then_analysis(
    room: Room, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(Conf, "SYNC", True)
    batch = store_texts(
        room.workspace,
        ("contrat.txt", CONTRACT),
        ("contrat (1).txt", CONTRACT + "\n"),
        user=room.owner,
    )
    with django_capture_on_commit_callbacks(execute=True):
        queued = queue_batch(workspace=room.workspace, batch=batch)
    assert queued == 2
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        assert set(Document.objects.values_list("status", flat=True)) == {"embedded"}
        assert not Chunk.objects.filter(embedding__isnull=True).exists()
        # The analysis ran last: the two copies are grouped.
        assert Document.objects.get(ref="c01").status == DocumentStatus.EMBEDDED
        from documents.models import DuplicateGroup

        assert DuplicateGroup.objects.count() == 1


def test_changing_the_model_re_embeds_instead_of_mixing_vectors(room: Room, settings):
    batch = store_texts(room.workspace, ("contrat.txt", CONTRACT), user=room.owner)
    run_in_process(workspace=room.workspace, batch=batch)
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        assert set(Chunk.objects.values_list("embedding_model", flat=True)) == {
            TEST_EMBEDDING_MODEL
        }
    # The same weights under another name (their path): a different model as far as the
    # stored vectors know, so every chunk must be embedded again.
    settings.LEXROOM_EMBEDDING_MODEL = resolve_model_path(TEST_EMBEDDING_MODEL)
    from documents.services import chunks_embed_pending, chunks_pending_embedding

    with tenant_scope(workspace_ids=[room.workspace.pk]):
        pending = chunks_pending_embedding(workspace_id=room.workspace.pk)
        assert pending == Chunk.objects.count() > 0
        assert chunks_embed_pending(workspace_id=room.workspace.pk) == pending
        assert chunks_pending_embedding(workspace_id=room.workspace.pk) == 0


def test_amendment_parties_and_entity_merge_split(room: Room):
    batch = store_texts(
        room.workspace, ("contrat.txt", CONTRACT), ("avenant.txt", AMENDMENT), user=room.owner
    )
    run_in_process(workspace=room.workspace, batch=batch)
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        amendment = Document.objects.get(filename="avenant.txt")
        assert amendment.is_amendment and amendment.amendment_number == 1
        names = set(Entity.objects.values_list("name", flat=True))
        assert any("Alpha Conseil" in n for n in names), names
        alpha = Entity.objects.get(name__startswith="Alpha Conseil")
        beta = Entity.objects.get(name__startswith="Beta Industrie")
        entity_merge(target=alpha, others=[beta], actor=room.owner)
        beta.refresh_from_db()
        assert beta.merged_into_id == alpha.pk
        assert alpha.parties.count() == 4
        split = entity_split_alias(entity=alpha, alias=beta.name, actor=room.owner)
        assert split.parties.count() == 2
        assert alpha.parties.count() == 2


def test_the_embedding_rounds_go_to_their_own_queue_when_one_is_named(
    room, settings, django_capture_on_commit_callbacks
):
    """A GPU host runs ``Q_CLUSTER_NAME=gpu manage.py qcluster`` with LEXROOM_EMBED_QUEUE=gpu:
    the embedding rounds wait in that queue; the documents' tasks stay in the main one."""
    from django_q.models import OrmQ

    from documents.tasks import embed_enqueue

    def queued() -> dict[str, int]:
        keys = list(OrmQ.objects.values_list("key", flat=True))
        return {key: keys.count(key) for key in ("gpu", "lexroom")}

    before = queued()  # other tasks may wait already (the room's set-up, earlier tests)
    settings.LEXROOM_EMBED_QUEUE = "gpu"
    with django_capture_on_commit_callbacks(execute=True):
        embed_enqueue(workspace_id=room.workspace.pk)
    assert queued() == {"gpu": before["gpu"] + 1, "lexroom": before["lexroom"]}
    settings.LEXROOM_EMBED_QUEUE = ""
    with django_capture_on_commit_callbacks(execute=True):
        embed_enqueue(workspace_id=room.workspace.pk)
    assert queued() == {"gpu": before["gpu"] + 1, "lexroom": before["lexroom"] + 1}
