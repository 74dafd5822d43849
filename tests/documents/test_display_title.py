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
from documents.models import Document, title_for_display
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
    call_command(
        "ingest", str(path), "--workspace", "deal-alpha", "--in-process", stdout=StringIO()
    )
    with workspace_scope(room.workspace):
        return Document.objects.get(filename=name)


def test_an_upload_is_called_by_the_title_line_of_its_text(
    room: Room, owner_client: Client, tmp_path: Path
):
    titled = _ingest(room, tmp_path, "scan_0042.txt", TITLED)
    untitled = _ingest(room, tmp_path, "notes.txt", UNTITLED)
    assert titled.title == ""  # nothing stored changes: the title is read as shown
    assert titled.display_title == "CONTRAT DE PRESTATION DE SERVICES"
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


def test_only_a_title_line_read_in_the_text_is_a_title():
    def shown(title: str = "", read: str = "Bail", read_as=("text", "title")) -> str:
        return title_for_display(title=title, filename="f.pdf", title_read=read, read_as=read_as)

    assert shown(title="Bail des Lilas") == "Bail des Lilas"
    assert shown() == "Bail"
    assert shown(read_as=("text", "mention")) == "f.pdf"  # "le présent bail" is no title
    assert shown(read_as=("metadata", None)) == "f.pdf"  # a type label, not a title
    assert shown(read="") == "f.pdf"
