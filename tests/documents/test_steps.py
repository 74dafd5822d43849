"""Ingestion's declared steps: each idempotent, and a run stopped midway finished by resuming."""

from __future__ import annotations

from typing import Any

import pytest

from documents.models import (
    Chunk,
    Document,
    DocumentLink,
    DocumentParty,
    DocumentStatus,
    DuplicateGroup,
    Entity,
)
from documents.services import (
    STEPS,
    WORKSPACE_STEPS,
    document_process,
    document_store,
    step_run,
    workspace_round,
)
from documents.tasks import process_document
from tests.helpers.contracts import AMENDMENT, CONTRACT
from tests.helpers.rooms import Room
from workspaces.tenancy import tenant_scope

pytestmark = pytest.mark.django_db

STEP = {step.name: step for step in STEPS}
WORKSPACE_STEP = {step.name: step for step in WORKSPACE_STEPS}
CHUNK_FIELDS = ("ordinal", "kind", "heading", "article_ref", "text", "index_text", "char_start")


def _stored(room: Room, name: str = "contrat.txt", text: str = CONTRACT) -> Document:
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        document, _ = document_store(
            workspace=room.workspace, filename=name, data=text.encode(), user=room.owner
        )
    return document


def _run(room: Room, document: Document, *names: str) -> Document:
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        for name in names:
            document = step_run(STEP[name], workspace_id=room.workspace.pk, document_id=document.pk)
    return document


def _rows(room: Room, document: Document) -> dict[str, Any]:
    """What the steps write, without the ids a re-run may renumber."""
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        fresh = Document.objects.get(pk=document.pk)
        return {
            "document": (
                fresh.status,
                fresh.text,
                fresh.page_starts,
                fresh.language,
                fresh.title,
                fresh.end_date,
                fresh.governing_law,
                fresh.warnings,
                fresh.text_fingerprint,
            ),
            "parties": list(
                DocumentParty.objects.filter(document=fresh)
                .order_by("ordinal")
                .values_list("ordinal", "name_as_written", "entity_id")
            ),
            "entities": sorted(Entity.objects.values_list("key", "name")),
            "chunks": list(
                Chunk.objects.filter(document=fresh).order_by("ordinal").values_list(*CHUNK_FIELDS)
            ),
        }


def test_steps_are_declared_once_in_ingestion_order():
    assert [step.name for step in STEPS] == ["parse", "metadata", "chunk"]
    assert [step.leads_to for step in STEPS] == [
        DocumentStatus.PARSED,
        DocumentStatus.PARSED,
        DocumentStatus.CHUNKED,
    ]
    assert [step.name for step in WORKSPACE_STEPS] == ["embed", "clause_types", "analyze"]


def test_parse_step_keeps_the_text_and_reaches_parsed_the_same_twice(room: Room):
    document = _run(room, _stored(room), "parse")
    assert document.status == DocumentStatus.PARSED
    assert document.text.startswith("CONTRAT DE PRESTATION") and document.page_starts == [0]
    first = _rows(room, document)
    assert _rows(room, _run(room, document, "parse")) == first


def test_metadata_step_links_the_parties_the_same_twice(room: Room):
    document = _run(room, _stored(room), "parse", "metadata")
    first = _rows(room, document)
    assert document.status == DocumentStatus.PARSED
    assert [name for _, name, _ in first["parties"]][:2] == [
        "Alpha Conseil SAS",
        "Beta Industrie SARL",
    ]
    assert document.governing_law and not first["chunks"]
    assert _rows(room, _run(room, document, "metadata")) == first


def test_chunk_step_writes_the_same_chunks_twice(room: Room):
    document = _run(room, _stored(room), "parse", "metadata", "chunk")
    first = _rows(room, document)
    assert document.status == DocumentStatus.CHUNKED
    assert [heading for _, _, heading, *_ in first["chunks"]][1:] == [
        "ARTICLE 1 — OBJET",
        "ARTICLE 2 — DURÉE",
        "ARTICLE 3 — LOI APPLICABLE",
    ]
    # The context prefix carries the parties the metadata step linked.
    assert "Alpha Conseil SAS" in first["chunks"][1][5]
    assert _rows(room, _run(room, document, "chunk")) == first


def test_embed_step_embeds_in_rounds_then_has_nothing_left(room: Room):
    document = _run(room, _stored(room), *STEP)
    embed = WORKSPACE_STEP["embed"]
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        assert embed.repeat and embed.run(room.workspace.pk) == Chunk.objects.count() > 0
        vectors = sorted(Chunk.objects.values_list("ordinal", "embedding_model"))
        assert embed.run(room.workspace.pk) == 0
        assert sorted(Chunk.objects.values_list("ordinal", "embedding_model")) == vectors
        assert Document.objects.get(pk=document.pk).status == DocumentStatus.EMBEDDED


def test_analyze_step_run_twice_keeps_the_same_links_and_groups(room: Room):
    for name, text in (("contrat.txt", CONTRACT), ("avenant.txt", AMENDMENT)):
        _run(room, _stored(room, name, text), *STEP)
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        while workspace_round(workspace_id=room.workspace.pk):
            pass
        links = list(DocumentLink.objects.values_list("source__ref", "target__ref", "kind"))
        groups = DuplicateGroup.objects.count()
        assert links and not WORKSPACE_STEP["analyze"].repeat
        WORKSPACE_STEP["analyze"].run(room.workspace.pk)
        assert list(DocumentLink.objects.values_list("source__ref", "target__ref", "kind")) == links
        assert DuplicateGroup.objects.count() == groups


def test_document_left_parsed_is_finished_by_resuming(room: Room):
    document = _run(room, _stored(room), "parse")  # as if the worker died after parsing
    assert document.status == DocumentStatus.PARSED
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        document_process(workspace_id=room.workspace.pk, document_id=document.pk, resume=True)
    resumed = _rows(room, document)
    assert resumed["document"][0] == DocumentStatus.CHUNKED and resumed["parties"]
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        document_process(workspace_id=room.workspace.pk, document_id=document.pk)
    assert _rows(room, document) == resumed  # the same as processing it whole


def test_resuming_leaves_a_chunked_document_as_it_is(room: Room):
    document = _run(room, _stored(room), *STEP)
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        chunk_ids = set(Chunk.objects.values_list("pk", flat=True))
        status = process_document(workspace_id=room.workspace.pk, document_id=document.pk)
        assert status == DocumentStatus.CHUNKED
        assert set(Chunk.objects.values_list("pk", flat=True)) == chunk_ids


def test_failed_document_is_retried_from_the_first_step(room: Room, settings):
    settings.LEXROOM_MAX_DOCUMENT_CHARS = 10
    document = _run(room, _stored(room), "parse")
    assert document.status == DocumentStatus.FAILED
    settings.LEXROOM_MAX_DOCUMENT_CHARS = 1_000_000
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        status = process_document(workspace_id=room.workspace.pk, document_id=document.pk)
    assert status == DocumentStatus.CHUNKED
    assert _rows(room, document)["document"][0] == DocumentStatus.CHUNKED


def test_processing_again_runs_every_step_from_the_start(room: Room):
    document = _run(room, _stored(room), *STEP)
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        chunk_ids = set(Chunk.objects.values_list("pk", flat=True))
        document_process(workspace_id=room.workspace.pk, document_id=document.pk)
        assert chunk_ids.isdisjoint(Chunk.objects.values_list("pk", flat=True))
