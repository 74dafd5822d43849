"""One reading of a batch's progress (selectors.batch_status) for REST, the CLI and the web UI."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from documents.models import IngestBatch
from documents.pipeline import batch_report, run_in_process, wait_for_batch
from documents.selectors import BatchFailure, batch_status
from documents.services import StoreResult, batch_create, document_store
from tests.helpers.contracts import CONTRACT
from tests.helpers.rooms import Room
from workspaces.tenancy import tenant_scope

pytestmark = pytest.mark.django_db


def _batch(room: Room) -> tuple[IngestBatch, list[StoreResult]]:
    """A contract, a file that fails when parsed, and a file refused before storage."""
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        results = [StoreResult("x.exe", code="unsupported", error="x.exe: unsupported")]
        for name, data in (("contrat.txt", CONTRACT.encode()), ("blanc.txt", b" \n \n")):
            document, created = document_store(
                workspace=room.workspace, filename=name, data=data, user=room.owner
            )
            results.append(StoreResult(name, document, created))
        batch = batch_create(workspace=room.workspace, label="t", results=results, user=room.owner)
    return batch, results


def _status(room: Room, batch: IngestBatch):
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        return batch_status(batch=batch)


def test_a_stored_batch_is_all_pending(room: Room):
    batch, _ = _batch(room)
    state = _status(room, batch)
    assert (state.documents, state.done, state.failed, state.pending) == (2, 0, 0, 2)
    assert state.statuses == {"stored": 2} and state.failures == []
    assert state.refused == [
        {"file": "x.exe", "code": "unsupported", "error": "x.exe: unsupported"}
    ]
    assert not state.documents_final and not state.finished


def test_a_processed_batch_counts_done_failed_and_the_reasons(room: Room):
    batch, _ = _batch(room)
    run_in_process(workspace=room.workspace, batch=batch)
    state = _status(room, batch)
    assert (state.documents, state.done, state.failed, state.pending) == (2, 2, 1, 0)
    assert state.statuses == {"embedded": 1, "failed": 1}
    assert state.failures == [
        BatchFailure(contract_id="c02", file="blanc.txt", error=state.failures[0].error)
    ]
    assert state.failures[0].error  # the reason, in the active language
    assert state.chunks_awaiting_embedding == 0 and state.documents_final and state.finished


def test_rest_cli_report_and_waiting_read_the_same_progress(room: Room, owner_client: Client):
    batch, results = _batch(room)
    run_in_process(workspace=room.workspace, batch=batch)
    state = _status(room, batch)
    body = owner_client.get(f"/api/workspaces/deal-alpha/batches/{batch.pk}/").json()
    assert body == {
        "batch_id": batch.pk,
        "documents": 2,
        "statuses": state.statuses,
        "done": True,
        "refused": state.refused,
    }
    report = batch_report(workspace=room.workspace, batch=batch, results=results)
    assert report.statuses == state.statuses
    assert report.failures == [
        {"contract_id": "c02", "file": "blanc.txt", "error": state.failures[0].error}
    ]
    seen: list[tuple[str, int, int]] = []
    wait_for_batch(
        workspace=room.workspace,
        batch=batch,
        progress=lambda *args: seen.append(args),
        timeout_seconds=5,
    )
    assert seen == [("documents", 2, 2)]


def test_the_upload_endpoint_batch_is_read_the_same_way(owner_client: Client, room: Room):
    response = owner_client.post(
        "/api/workspaces/deal-alpha/documents/upload/",
        {"files": [SimpleUploadedFile("contrat.txt", CONTRACT.encode())]},
    )
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        batch = IngestBatch.objects.get(pk=response.json()["batch_id"])
    body = owner_client.get(f"/api/workspaces/deal-alpha/batches/{batch.pk}/").json()
    state = _status(room, batch)
    assert body["statuses"] == state.statuses and body["done"] is state.documents_final
