"""REST for documents (session auth here; tokens come with the MCP/REST issue)."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.helpers.contracts import CONTRACT, TINY_DATAROOM, zip_of
from tests.helpers.rooms import Room

pytestmark = pytest.mark.django_db

BASE = "/api/workspaces/deal-alpha"


@pytest.fixture
def english(settings):
    settings.LANGUAGE_CODE = "en"  # the refusals checked word for word below


def test_workspace_list_shows_only_mine(viewer_client: Client, outsider_client: Client):
    assert [w["slug"] for w in viewer_client.get("/api/workspaces/").json()] == ["deal-alpha"]
    assert outsider_client.get("/api/workspaces/").json() == []


def test_anonymous_gets_401_with_a_bearer_challenge(client: Client, room: Room):
    response = client.get(f"{BASE}/documents/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_upload_then_list_detail_and_batch_status(owner_client: Client, room: Room):
    response = owner_client.post(
        f"{BASE}/documents/upload/",
        {
            "files": [
                SimpleUploadedFile("contrat.txt", CONTRACT.encode()),
                SimpleUploadedFile("x.pdf", b"not a pdf"),
            ]
        },
    )
    assert response.status_code == 202
    body = response.json()
    assert body["stored"] == [{"file": "contrat.txt", "contract_id": "c01", "created": True}]
    assert body["refused"][0]["code"] == "type_mismatch"
    listing = owner_client.get(f"{BASE}/documents/").json()
    assert [d["contract_id"] for d in listing] == ["c01"]
    assert listing[0]["status"] == "stored"
    detail = owner_client.get(f"{BASE}/documents/c01/").json()
    assert detail["sha256"] and detail["filename"] == "contrat.txt"
    batch = owner_client.get(f"{BASE}/batches/{body['batch_id']}/").json()
    assert batch["documents"] == 1 and batch["done"] is False


def test_viewer_cannot_upload_via_api(viewer_client: Client):
    response = viewer_client.post(
        f"{BASE}/documents/upload/", {"files": [SimpleUploadedFile("a.txt", CONTRACT.encode())]}
    )
    assert response.status_code == 403


def test_upload_without_files_is_a_clear_400(owner_client: Client):
    response = owner_client.post(f"{BASE}/documents/upload/", {})
    assert response.status_code == 400
    assert "files" in response.json()["error"]


@pytest.mark.parametrize("path", ["/documents/", "/documents/c01/", "/batches/1/", "/"])
def test_outsider_and_foreigner_get_404_like_missing(
    path: str, outsider_client: Client, foreigner_client: Client
):
    for client in (outsider_client, foreigner_client):
        foreign = client.get(f"{BASE}{path}")
        missing = client.get(f"/api/workspaces/no-such-room{path}")
        assert foreign.status_code == missing.status_code == 404
        assert foreign.json() == missing.json()


def _post(client: Client, *files: SimpleUploadedFile):
    return client.post(f"{BASE}/documents/upload/", {"files": list(files)})


def test_zip_upload_reports_each_member(owner_client: Client, room: Room, english):
    deal = zip_of(
        {
            "contracts/a.txt": CONTRACT,
            "contracts/b.md": "# Avenant\n\nARTICLE 1 — Objet\nLe loyer est révisé.",
            "contracts/tool.exe": "MZ not a contract",
        }
    )
    response = _post(owner_client, SimpleUploadedFile("deal.zip", deal))
    assert response.status_code == 202
    body = response.json()
    assert body["stored"] == [
        {"file": "deal.zip/contracts/a.txt", "contract_id": "c01", "created": True},
        {"file": "deal.zip/contracts/b.md", "contract_id": "c02", "created": True},
    ]
    [refused] = body["refused"]
    assert refused["file"] == "deal.zip/contracts/tool.exe"
    assert refused["code"] == "unsupported"
    assert refused["error"].startswith("deal.zip/contracts/tool.exe: ")
    batch = owner_client.get(f"{BASE}/batches/{body['batch_id']}/").json()
    assert batch["documents"] == 2 and batch["refused"] == body["refused"]


def test_dataroom_json_upload_stores_its_contracts_via_api(owner_client: Client):
    response = _post(
        owner_client, SimpleUploadedFile("room.json", json.dumps(TINY_DATAROOM).encode())
    )
    assert response.status_code == 202
    assert response.json()["stored"] == [
        {"file": "bail_test.txt", "contract_id": "c01", "created": True},
        {"file": "avenant_test.txt", "contract_id": "c02", "created": True},
    ]


def test_zip_over_the_limits_is_refused_clearly(owner_client: Client, settings):
    settings.LEXROOM_ZIP_MAX_FILES = 2
    deal = zip_of({f"c{i}.txt": f"{CONTRACT}\n{i}" for i in range(3)})
    response = _post(owner_client, SimpleUploadedFile("deal.zip", deal))
    assert response.status_code == 400
    [refused] = response.json()["refused"]
    assert refused["file"] == "deal.zip"
    assert refused["code"] == "zip_too_many_files"
    assert "LEXROOM_ZIP_MAX_FILES" in refused["error"]
    settings.LEXROOM_MAX_UPLOAD_BYTES = len(deal) - 1  # the upload limit covers archives too
    [refused] = _post(owner_client, SimpleUploadedFile("deal.zip", deal)).json()["refused"]
    assert refused["code"] == "too_large"
