"""A contract is called by its title everywhere: the data room's, else the title line read at
the head of its text, else its file name (never a blank)."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from agents.tools import call_tool
from compliance import export
from compliance.models import Flag
from compliance.playbooks import default_playbooks
from compliance.selectors import flag_contracts
from documents.models import Document
from documents.services._metadata import filename_title
from tests.helpers.contracts import ingest_command
from tests.helpers.rooms import Room
from workspaces.tenancy import workspace_scope

pytestmark = pytest.mark.django_db

TITLED = (
    "CONTRAT DE PRESTATION DE SERVICES\n\n"
    "Entre la société Alpha SAS et la société Beta SARL.\n\n"
    "ARTICLE 1 — OBJET\nLe prestataire fournit une assistance informatique.\n\n"
    "ARTICLE 2 — PRIX\nLe prix est de 1 000 euros par mois.\n"
)
UNTITLED = "Le prestataire fournit une assistance.\n\nLe prix est de 10 euros.\n"


def _ingest(room: Room, tmp_path: Path, name: str, text: str) -> Document:
    path = tmp_path / name
    path.write_text(text)
    ingest_command(path)
    with workspace_scope(room.workspace):
        return Document.objects.get(filename=name)


def test_an_upload_is_called_by_the_title_line_of_its_text(
    room: Room, owner_client: Client, tmp_path: Path
):
    titled = _ingest(room, tmp_path, "scan_0042.txt", TITLED)
    untitled = _ingest(room, tmp_path, "notes.txt", UNTITLED)
    assert titled.title == titled.display_title == "CONTRAT DE PRESTATION DE SERVICES"
    # The chunks' context line stays the file's name: the title line is in the text already,
    # and search rankings do not move.
    with workspace_scope(room.workspace):
        first = titled.chunks.order_by("ordinal").first()
    assert first is not None and first.index_text.startswith(filename_title("scan_0042.txt"))
    assert untitled.display_title == "notes.txt"
    listing = owner_client.get(reverse("document_index", args=["deal-alpha"])).content.decode()
    assert "CONTRAT DE PRESTATION DE SERVICES" in listing
    detail = owner_client.get(reverse("document_detail", args=["deal-alpha", titled.ref]))
    assert "CONTRAT DE PRESTATION DE SERVICES" in detail.content.decode()
    found = call_tool(
        name="search_data_room", arguments={"workspace": "deal-alpha"}, user=room.viewer
    ).content
    titles = {hit["contract_id"]: hit["title"] for hit in found["results"]}
    assert titles == {titled.ref: "CONTRAT DE PRESTATION DE SERVICES", untitled.ref: "notes.txt"}


def test_flags_their_filter_and_exports_show_the_title(
    room: Room, owner_client: Client, tmp_path: Path, settings
):
    settings.OLLAMA_URL = "http://127.0.0.1:9"  # no LLM: its rules are skipped
    document = _ingest(room, tmp_path, "scan_0042.txt", TITLED)
    for playbook in default_playbooks():
        call_command(
            "load_playbooks", str(playbook), "--firm", room.firm.name,
            "--assign", "deal-alpha", stdout=StringIO(),
        )  # fmt: skip
    call_tool(
        name="scan_contract", user=room.owner, via="cli", arguments={"workspace": "deal-alpha"}
    )
    with workspace_scope(room.workspace):
        flags = list(Flag.objects.select_related("document", "rule__playbook"))
        assert flags, "the default playbooks flag a contract missing every usual clause"
        assert flag_contracts(workspace=room.workspace) == [
            (document.ref, "CONTRAT DE PRESTATION DE SERVICES")
        ]
    assert export.row(flags[0])[1] == "CONTRAT DE PRESTATION DE SERVICES"
    page = owner_client.get(reverse("flags", args=["deal-alpha"])).content.decode()
    assert page.count("CONTRAT DE PRESTATION DE SERVICES") >= 2  # a row and the filter


def test_a_contract_type_only_mentioned_in_the_text_is_no_title(room: Room, tmp_path: Path):
    mentioned = "Le présent contrat de bail est conclu pour neuf ans.\n\nLe loyer est annuel.\n"
    document = _ingest(room, tmp_path, "bail_lilas.txt", mentioned)
    assert document.title == "" and document.display_title == "bail_lilas.txt"


def test_documents_stored_before_get_the_title_line_read_at_ingestion(room: Room):
    import importlib

    from django.db import connection

    from tests.factories import DocumentFactory

    def read_as(rule: str) -> dict[str, object]:
        return {"contract_type": {"source": "text", "rule": rule, "value": "services"}}

    line = DocumentFactory(
        workspace=room.workspace, title="", contract_type_title="CONTRAT DE SERVICES",
        provenance=read_as("title"),
    )  # fmt: skip
    mention = DocumentFactory(
        workspace=room.workspace, title="", contract_type_title="contrat de bail",
        provenance=read_as("mention"),
    )  # fmt: skip
    given = DocumentFactory(
        workspace=room.workspace, title="Bail des Lilas", contract_type_title="BAIL",
        provenance=read_as("title"),
    )  # fmt: skip
    migration = importlib.import_module("documents.migrations.0009_titles_from_text")
    migration._titles(None, type("Editor", (), {"connection": connection})())
    with workspace_scope(room.workspace):
        titles = dict(Document.objects.values_list("pk", "title"))
    assert titles == {line.pk: "CONTRAT DE SERVICES", mention.pk: "", given.pk: "Bail des Lilas"}
