"""The Brenalis data room, imported end to end: the issue's acceptance checks."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from io import StringIO

import pytest
from django.core.management import call_command

from documents.models import Chunk, Document, DocumentLink, DocumentStatus, DuplicateGroup, Entity
from documents.services import workspace_purge_throwaway
from tests.helpers.data import TEST_EMBEDDING_MODEL, shared_data
from workspaces.models import Workspace
from workspaces.tenancy import tenant_scope

pytestmark = pytest.mark.django_db


@dataclass
class Imported:
    workspace: Workspace
    output: str


@pytest.fixture(scope="module")
def brenalis(django_db_setup, django_db_blocker):
    """Imported once for the module (embedding 20 contracts is the slow part), then removed."""
    path = shared_data("dataroom-brenalis", "exemple_data_room.json")
    with django_db_blocker.unblock():
        call_command(
            "create_workspace",
            "brenalis",
            "--owner",
            "dd@brenalis.test",
            "--firm",
            "Cabinet Brenalis",
            stdout=StringIO(),
        )
        out = StringIO()
        call_command(
            "import_dataroom", str(path), "--workspace", "brenalis", "--in-process", stdout=out
        )
        workspace = Workspace.objects.get(slug="brenalis")
        yield Imported(workspace, out.getvalue())
        workspace_purge_throwaway(workspace=workspace)


def _doc(ref: str) -> Document:
    return Document.objects.get(ref=ref)


def test_import_numbers_contracts_in_file_order_and_embeds_them(brenalis):
    room, output = brenalis, brenalis.output
    # Commands speak LANGUAGE_CODE: French here, as on an install left at its default.
    assert "enregistrés\u00a0: 20," in output
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        refs = list(Document.objects.order_by("pk").values_list("ref", flat=True))
        assert refs == [f"c{n:02d}" for n in range(1, 21)]
        assert _doc("c01").filename == "credit_acquisition_orsenne_brenalis.pdf"
        assert set(Document.objects.values_list("status", flat=True)) == {DocumentStatus.EMBEDDED}
        assert not Chunk.objects.filter(embedding__isnull=True).exists()
        assert set(Chunk.objects.values_list("embedding_model", "embedding_dim")) == {
            (TEST_EMBEDDING_MODEL, 384)
        }


def test_dates_in_mixed_formats_are_normalised(brenalis):
    room = brenalis
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        assert _doc("c03").signature_date == date(2024, 6, 3)
        assert _doc("c02").signature_date == date(2022, 3, 28)
        assert _doc("c15").signature_date == date(2023, 9, 18)
        assert _doc("c09").signature_date == date(2023, 6, 19)


def test_amendment_moves_the_effective_end_date_with_an_explanation(brenalis):
    room = brenalis
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        link = DocumentLink.objects.get(source__ref="c18")
        assert link.target.ref == "c09"
        c09 = _doc("c09")
        assert c09.end_date == date(2026, 6, 30)
        assert c09.effective_end_date == date(2028, 6, 30)
        assert "c18" in c09.effective_end_explanation


def test_duplicates_and_translations_are_grouped_with_reasons(brenalis):
    room = brenalis
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        groups = {
            frozenset(group.members.values_list("document__ref", flat=True)): group
            for group in DuplicateGroup.objects.all()
        }
        assert frozenset({"c11", "c19"}) in groups
        assert frozenset({"c05", "c20"}) in groups
        assert groups[frozenset({"c05", "c20"})].kind == "translation"
        assert all(group.reason for group in groups.values())
        assert Document.objects.count() == 20  # shown, never deleted


def test_contradiction_and_unknown_law_are_reported_not_guessed(brenalis):
    room = brenalis
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        c15 = _doc("c15")
        assert any("2026-09-30" in warning for warning in c15.warnings), c15.warnings
        assert _doc("c10").governing_law == ""


def test_entities_fold_legal_forms_but_keep_close_names_apart(brenalis):
    room = brenalis
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        quorvia = Entity.objects.get(parties__document__ref="c15", name__icontains="quorvia")
        assert set(quorvia.parties.values_list("document__ref", flat=True)) == {"c12", "c15"}
        brenalis_ids = set(
            Entity.objects.filter(name__icontains="brenalis").values_list("id", flat=True)
        )
        brenalys_ids = set(
            Entity.objects.filter(name__icontains="brénalys").values_list("id", flat=True)
        )
        assert len(brenalis_ids) == 1 and len(brenalys_ids) == 1
        assert brenalis_ids != brenalys_ids


def test_reimport_is_idempotent(brenalis):
    room = brenalis
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        chunks_before = Chunk.objects.count()
    out = StringIO()
    path = shared_data("dataroom-brenalis", "exemple_data_room.json")
    call_command(
        "import_dataroom", str(path), "--workspace", "brenalis", "--in-process", stdout=out
    )
    assert "enregistrés\u00a0: 0, déjà présents\u00a0: 20," in out.getvalue()
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        assert Document.objects.count() == 20
        assert Chunk.objects.count() == chunks_before
