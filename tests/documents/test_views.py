"""Document pages and the upload form: members read, editors upload, outsiders get 404."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from documents.models import Chunk, Document, DocumentStatus
from documents.services import document_process
from tests.helpers.contracts import CONTRACT, TINY_DATAROOM, store_texts, zip_of
from tests.helpers.rooms import Room
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
    # The upload's page names the refused file (it used to be a message on the documents page).
    page = owner_client.get(response["Location"])
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
    # The fragment and the page share the URL: both say so to caches.
    page = owner_client.get(reverse("document_index", args=["deal-alpha"]))
    for answer in (response, page):
        assert "HX-Request" in answer["Vary"]


def _results(response) -> list[str]:
    """What the upload's page says of each file: "name: stored as c01" or "name: refused…"."""
    return [
        f"{file.name}: refused: {file.error}"
        if file.error
        else f"{file.name}: {'stored' if file.created else 'present'} as {file.document.ref}"
        for file in response.context["files"]
    ]


@pytest.fixture
def english(settings):
    settings.LANGUAGE_CODE = "en"  # the messages checked word for word below


def test_zip_upload_stores_good_members_and_names_the_refused_one(
    owner_client: Client, room: Room, english
):
    deal = zip_of(
        {
            "contracts/a.txt": CONTRACT,
            "contracts/b.md": "# Avenant\n\nARTICLE 1 — Objet\nLe loyer est révisé.",
            "../evil.txt": "escape attempt",
        }
    )
    response = owner_client.post(
        reverse("document_upload", args=["deal-alpha"]),
        {"files": [SimpleUploadedFile("deal.zip", deal)]},
        follow=True,
    )
    shown = _results(response)
    assert shown[:2] == [
        "deal.zip/contracts/a.txt: stored as c01",
        "deal.zip/contracts/b.md: stored as c02",
    ]
    assert shown[2].startswith("deal.zip/../evil.txt: refused: deal.zip/../evil.txt: ")
    assert len(shown) == 3
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        stored = dict(Document.objects.values_list("filename", "archive_path"))
    assert stored == {"a.txt": "deal.zip/contracts/a.txt", "b.md": "deal.zip/contracts/b.md"}


def test_dataroom_json_upload_stores_its_contracts(owner_client: Client, room: Room, english):
    room_file = SimpleUploadedFile("room.json", json.dumps(TINY_DATAROOM).encode())
    response = owner_client.post(
        reverse("document_upload", args=["deal-alpha"]), {"files": [room_file]}, follow=True
    )
    assert _results(response) == ["bail_test.txt: stored as c01", "avenant_test.txt: stored as c02"]
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        documents = dict(Document.objects.values_list("ref", "title"))
    assert documents == {"c01": "Bail de test", "c02": "Avenant de test"}


def test_zip_over_the_member_limit_is_refused_naming_the_limit(
    owner_client: Client, room: Room, settings, english
):
    settings.LEXROOM_ZIP_MAX_FILES = 2
    deal = zip_of({f"c{i}.txt": f"{CONTRACT}\n{i}" for i in range(3)})
    response = owner_client.post(
        reverse("document_upload", args=["deal-alpha"]),
        {"files": [SimpleUploadedFile("deal.zip", deal)]},
        follow=True,
    )
    [shown] = _results(response)
    assert shown.startswith("deal.zip: refused: deal.zip: ")
    assert "at most 2 files (LEXROOM_ZIP_MAX_FILES)" in shown
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        assert not Document.objects.exists()


def test_document_page_shows_a_page_of_articles_and_links_to_the_next(
    owner_client: Client, room: Room, settings, english
):
    settings.LEXROOM_ARTICLES_PER_PAGE = 2  # the contract has a preamble and 3 articles
    batch = store_texts(room.workspace, ("contrat.txt", CONTRACT), user=room.owner)
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
