"""The upload page and an upload's progress page: per-file results (stored, already present,
refused), processing state from ``batch_status``, polling that stops when finished, access."""

from __future__ import annotations

import html

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django_q.conf import Conf

from documents.models import IngestBatch
from documents.pipeline import run_in_process
from documents.selectors import batch_status
from tests.helpers.contracts import CONTRACT, zip_of
from tests.helpers.rooms import Room
from workspaces.services import workspace_create
from workspaces.tenancy import tenant_scope, workspace_scope

pytestmark = pytest.mark.django_db

UPLOAD = reverse("document_upload", args=["deal-alpha"])


def _post(client: Client, *files: SimpleUploadedFile):
    return client.post(UPLOAD, {"files": list(files)})


def _batch(room: Room, response) -> IngestBatch:
    assert response.status_code == 302
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        batch = IngestBatch.objects.latest("pk")
    assert response["Location"] == reverse("batch_detail", args=["deal-alpha", batch.pk])
    return batch


def _text(response) -> str:
    return html.unescape(response.content.decode())


def test_upload_page_has_a_labelled_drop_zone_and_works_without_javascript(owner_client: Client):
    page = owner_client.get(UPLOAD).content.decode()
    assert 'enctype="multipart/form-data"' in page and 'method="post"' in page
    assert '<label for="id_files" class="dropzone" data-dropzone>' in page
    assert 'type="file" id="id_files" name="files" multiple' in page
    assert "<script>" not in page and "onclick" not in page  # our JS is a static file


def test_viewer_gets_403_and_strangers_404_on_the_upload_page(
    viewer_client: Client, outsider_client: Client, foreigner_client: Client
):
    assert viewer_client.get(UPLOAD).status_code == 403
    assert outsider_client.get(UPLOAD).status_code == 404
    assert foreigner_client.get(UPLOAD).status_code == 404


def test_no_file_chosen_goes_back_to_the_form_with_a_message(owner_client: Client):
    response = owner_client.post(UPLOAD, {}, follow=True)
    assert response.redirect_chain[-1][0] == UPLOAD
    assert [str(m) for m in response.context["messages"]]


def test_a_zip_with_a_bad_member_shows_it_refused_and_the_others_stored(
    room: Room, owner_client: Client, settings
):
    settings.LANGUAGE_CODE = "en"
    deal = zip_of({"a.txt": CONTRACT, "b.md": f"{CONTRACT}\nbis", "outil.exe": "MZ"})
    batch = _batch(room, _post(owner_client, SimpleUploadedFile("deal.zip", deal)))
    page = owner_client.get(reverse("batch_detail", args=["deal-alpha", batch.pk]))
    files = {file.name: file for file in page.context["files"]}
    assert files["deal.zip/a.txt"].document.ref == "c01" and files["deal.zip/a.txt"].created
    assert files["deal.zip/b.md"].document.ref == "c02"
    assert "unsupported file type .exe" in files["deal.zip/outil.exe"].error
    text = _text(page)
    assert "Refused: deal.zip/outil.exe: unsupported file type .exe" in text
    assert text.count("Stored as") == 2


def test_the_same_bytes_again_read_already_present_with_the_existing_ref(
    room: Room, owner_client: Client, settings
):
    settings.LANGUAGE_CODE = "en"
    _post(owner_client, SimpleUploadedFile("bail.txt", CONTRACT.encode()))
    again = _batch(room, _post(owner_client, SimpleUploadedFile("copie.txt", CONTRACT.encode())))
    page = owner_client.get(reverse("batch_detail", args=["deal-alpha", again.pk]))
    [file] = page.context["files"]
    assert (file.name, file.created, file.document.ref) == ("copie.txt", False, "c01")
    assert "Already present: duplicate of c01" in _text(page)


def test_progress_polls_every_second_until_finished_then_links_the_documents(
    room: Room, owner_client: Client, django_assert_max_num_queries
):
    batch = _batch(room, _post(owner_client, SimpleUploadedFile("bail.txt", CONTRACT.encode())))
    url = reverse("batch_detail", args=["deal-alpha", batch.pk])
    with django_assert_max_num_queries(14):  # 8 for session and scope, 6 whatever its size
        waiting = owner_client.get(url, headers={"HX-Request": "true"})
    assert b"<html" not in waiting.content
    assert f'hx-get="{url}" hx-trigger="every 1s"'.encode() in waiting.content
    assert b'href="/w/deal-alpha/documents/c01/"' not in waiting.content
    assert not owner_client.get(url).context["status"].finished

    run_in_process(workspace=room.workspace, batch=batch)
    done = owner_client.get(url, headers={"HX-Request": "true"})
    with workspace_scope(room.workspace):
        expected = batch_status(batch=batch)
    assert owner_client.get(url).context["status"] == expected and expected.finished
    assert b"hx-trigger" not in done.content  # swapped in, it ends the polling
    assert b'href="/w/deal-alpha/documents/c01/"' in done.content
    assert b'<progress value="1" max="1"' in done.content


def test_with_a_synchronous_worker_the_upload_lands_on_a_finished_page(
    room: Room, owner_client: Client, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(Conf, "SYNC", True)
    with django_capture_on_commit_callbacks(execute=True):
        response = _post(owner_client, SimpleUploadedFile("bail.txt", CONTRACT.encode()))
    page = owner_client.get(response["Location"])
    assert page.context["status"].finished
    assert page.context["status"].statuses == {"embedded": 1}


def test_the_batch_page_is_404_for_strangers_and_for_another_workspaces_batch(
    room: Room, owner_client: Client, outsider_client: Client, foreigner_client: Client
):
    batch = _batch(room, _post(owner_client, SimpleUploadedFile("bail.txt", CONTRACT.encode())))
    url = reverse("batch_detail", args=["deal-alpha", batch.pk])
    missing = owner_client.get(reverse("batch_detail", args=["deal-alpha", batch.pk + 99]))
    assert missing.status_code == 404
    for client in (outsider_client, foreigner_client):
        assert client.get(url).status_code == 404
    # The owner's other workspace cannot show this batch under its own address.
    workspace_create(firm=room.firm, slug="deal-two", title="Two", owner=room.owner)
    other = owner_client.get(reverse("batch_detail", args=["deal-two", batch.pk]))
    assert other.status_code == 404
