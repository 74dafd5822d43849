"""Document pages and the upload form: members read, editors upload, outsiders get 404."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from documents.models import Chunk, Document, DocumentStatus
from documents.services import document_process
from tests.conftest import Room
from tests.documents.test_ingest import CONTRACT
from tests.documents.test_tasks import _store
from workspaces.tenancy import tenant_scope

pytestmark = pytest.mark.django_db


def _upload(client: Client, *files: SimpleUploadedFile):
    return client.post(reverse("document_upload", args=["deal-alpha"]), {"files": list(files)})


def test_editor_uploads_and_documents_are_queued(room: Room, django_capture_on_commit_callbacks):
    client = Client()
    client.force_login(room.editor)
    with django_capture_on_commit_callbacks() as callbacks:
        response = _upload(client, SimpleUploadedFile("contrat.txt", CONTRACT.encode()))
    assert response.status_code == 302
    assert len(callbacks) == 1  # one processing task queued after commit
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        assert Document.objects.get().status == DocumentStatus.STORED


def test_viewer_cannot_upload(viewer_client: Client, room: Room):
    response = _upload(viewer_client, SimpleUploadedFile("contrat.txt", CONTRACT.encode()))
    assert response.status_code == 403
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        assert not Document.objects.exists()


def test_outsider_and_foreigner_cannot_upload_or_list(
    outsider_client: Client, foreigner_client: Client
):
    for client in (outsider_client, foreigner_client):
        file = SimpleUploadedFile("contrat.txt", CONTRACT.encode())
        assert _upload(client, file).status_code == 404
        assert client.get(reverse("document_index", args=["deal-alpha"])).status_code == 404
        assert client.get(reverse("document_detail", args=["deal-alpha", "c01"])).status_code == 404


def test_wrong_type_upload_shows_the_error(owner_client: Client, room: Room):
    response = _upload(owner_client, SimpleUploadedFile("contract.pdf", b"plain text"))
    assert response.status_code == 302
    page = owner_client.get(reverse("document_index", args=["deal-alpha"]))
    assert b"contract.pdf" in page.content
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        assert not Document.objects.exists()


def test_member_sees_list_and_detail_and_missing_document_is_404(owner_client: Client, room: Room):
    _upload(owner_client, SimpleUploadedFile("contrat.txt", CONTRACT.encode()))
    listing = owner_client.get(reverse("document_index", args=["deal-alpha"]))
    assert b"c01" in listing.content
    detail = owner_client.get(reverse("document_detail", args=["deal-alpha", "c01"]))
    assert detail.status_code == 200
    assert b"contrat.txt" in detail.content
    assert (
        owner_client.get(reverse("document_detail", args=["deal-alpha", "c99"])).status_code == 404
    )


def test_htmx_refresh_returns_only_the_table(owner_client: Client):
    response = owner_client.get(
        reverse("document_index", args=["deal-alpha"]), headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    assert b'id="document-table"' in response.content
    assert b"<html" not in response.content


def test_document_page_shows_a_page_of_articles_and_links_to_the_next(
    owner_client: Client, room: Room, settings
):
    settings.LEXROOM_ARTICLES_PER_PAGE = 2  # the contract has a preamble and 3 articles
    batch = _store(room, ("contrat.txt", CONTRACT))
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        document_process(workspace_id=room.workspace.pk, document_id=batch.document_ids[0])
        every_heading = list(Chunk.objects.order_by("ordinal").values_list("heading", flat=True))
    url = reverse("document_detail", args=["deal-alpha", "c01"])
    first = owner_client.get(url)
    articles = first.context["articles"]
    assert [c.heading for c in articles.chunks] == every_heading[:2]
    assert articles.total == 4 and b"Articles 1\xe2\x80\x932 of 4" in first.content
    next_link = f'href="?after={articles.next_cursor}#articles"'.encode()
    assert next_link in first.content
    second = owner_client.get(url, {"after": articles.next_cursor})
    assert [c.heading for c in second.context["articles"].chunks] == every_heading[2:]
    assert second.context["articles"].next_cursor is None
    assert b'rel="next"' not in second.content
