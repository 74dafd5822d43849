"""The home page and the workspace dashboard: counts per workspace, the documents table sorted,
filtered and paged from the URL, its links and duplicates, live state, and who sees what."""

from __future__ import annotations

import html
from datetime import date

import pytest
from django.test import Client
from django.urls import reverse

from documents.models import (
    Document,
    DocumentLink,
    DocumentParty,
    DocumentStatus,
    DuplicateGroup,
    DuplicateMember,
    Entity,
)
from tests.factories import MembershipFactory, WorkspaceFactory
from tests.helpers.rooms import Room
from workspaces.models import Role, Workspace
from workspaces.tenancy import tenant_scope

pytestmark = pytest.mark.django_db

DASHBOARD = reverse("workspace_detail", args=["deal-alpha"])


def _document(workspace: Workspace, number: int, **fields) -> Document:
    values = {
        "ref": f"c{number:02d}",
        "title": f"Contrat {number:03d}",
        "filename": f"contrat-{number}.txt",
        "sha256": f"{workspace.pk:04d}{number:060d}",
        "original": f"x/{number}",
        "status": DocumentStatus.EMBEDDED,
        **fields,
    }
    with tenant_scope(workspace_ids=[workspace.pk]):
        return Document.objects.create(workspace=workspace, **values)


def _many(room: Room, count: int) -> list[Document]:
    """``count`` contracts with two parties each, amendment links and a duplicate pair."""
    workspace = room.workspace
    documents = [
        _document(
            workspace,
            n,
            contract_type="bail" if n % 2 else "cession",
            governing_law="droit français" if n % 3 else "droit belge",
            signature_date=date(2020, 1, 1 + n % 28),
        )
        for n in range(1, count + 1)
    ]
    with tenant_scope(workspace_ids=[workspace.pk]):
        seller = Entity.objects.create(workspace=workspace, key="alpha", name="SCI Alpha")
        buyer = Entity.objects.create(workspace=workspace, key="beta", name="Beta SARL")
        for document in documents:
            for ordinal, entity in enumerate((seller, buyer)):
                DocumentParty.objects.create(
                    workspace=workspace,
                    document=document,
                    entity=entity,
                    name_as_written=entity.name,
                    ordinal=ordinal,
                )
        for source, target in zip(documents[1::2], documents[::2], strict=False):
            DocumentLink.objects.create(
                workspace=workspace, source=source, target=target, explanation="avenant"
            )
        group = DuplicateGroup.objects.create(workspace=workspace, kind="exact", reason="same")
        for document in documents[:2]:
            DuplicateMember.objects.create(workspace=workspace, group=group, document=document)
    return documents


def _refs(response) -> list[str]:
    return [row.document.ref for row in response.context["table"].rows]


# --- Home ------------------------------------------------------------------------------------


def test_home_shows_role_documents_last_upload_and_ingestion_state(
    room: Room, owner_client: Client, settings
):
    settings.LANGUAGE_CODE = "en"
    _document(room.workspace, 1)
    _document(room.workspace, 2, status=DocumentStatus.PARSED)
    _document(room.workspace, 3, status=DocumentStatus.FAILED)
    response = owner_client.get(reverse("home"))
    [(workspace, role)] = response.context["workspaces"]
    assert (workspace.document_count, workspace.in_progress, workspace.failed) == (3, 1, 1)
    assert role == "Owner" and workspace.last_upload is not None
    page = response.content.decode()
    assert "1 in progress" in page and "1 failed" in page and "Last upload" in page


def test_home_says_up_to_date_when_every_document_is_final(room: Room, viewer_client: Client):
    _document(room.workspace, 1)
    page = viewer_client.get(reverse("home")).content.decode()
    assert "à jour" in page and "Lecteur" in page


def test_home_query_count_does_not_grow_with_workspaces_or_documents(
    room: Room, viewer_client: Client, django_assert_max_num_queries
):
    for n in range(5):
        extra = WorkspaceFactory(firm=room.firm, slug=f"extra-{n}")
        MembershipFactory(workspace=extra, user=room.viewer, role=Role.EDITOR)
        for number in range(1, 4):
            _document(extra, number)
    with django_assert_max_num_queries(9):
        response = viewer_client.get(reverse("home"))
    assert sorted(w.document_count for w, _ in response.context["workspaces"]) == [0] + [3] * 5


# --- Dashboard: sorting, filtering, paging ---------------------------------------------------


def test_dashboard_sorts_by_a_whitelisted_column_both_ways(room: Room, owner_client: Client):
    _document(room.workspace, 1, signature_date=date(2021, 5, 1))
    _document(room.workspace, 2, signature_date=date(2019, 5, 1))
    _document(room.workspace, 10, signature_date=None)
    ascending = owner_client.get(DASHBOARD, {"sort": "signature_date"})
    assert _refs(ascending) == ["c02", "c01", "c10"]  # unknown dates last either way
    descending = owner_client.get(DASHBOARD, {"sort": "signature_date", "dir": "desc"})
    assert _refs(descending) == ["c01", "c02", "c10"]
    # Contract ids sort as numbers: c2 before c10.
    assert _refs(owner_client.get(DASHBOARD)) == ["c01", "c02", "c10"]
    assert b'aria-sort="descending"' in descending.content
    assert b"?sort=signature_date&amp;dir=asc" in descending.content


def test_an_unknown_sort_key_or_page_is_a_message_not_an_error(room: Room, owner_client: Client):
    _document(room.workspace, 1)
    response = owner_client.get(DASHBOARD, {"sort": "text; drop table", "page": "abc"})
    assert response.status_code == 200
    assert _refs(response) == ["c01"]
    assert len(response.context["problems"]) == 2
    past_the_end = owner_client.get(DASHBOARD, {"page": "7"})
    assert past_the_end.status_code == 200 and _refs(past_the_end) == ["c01"]
    assert "La page 7 n'existe pas" in html.unescape(past_the_end.content.decode())


def test_filters_combine_text_status_type_law_and_warnings(room: Room, owner_client: Client):
    _document(room.workspace, 1, title="Bail Lyon", contract_type="bail", governing_law="droit")
    _document(room.workspace, 2, title="Bail Nice", contract_type="bail", warnings=["w"])
    _document(room.workspace, 3, title="Cession", status=DocumentStatus.FAILED)
    assert _refs(owner_client.get(DASHBOARD, {"q": "bail"})) == ["c01", "c02"]
    assert _refs(owner_client.get(DASHBOARD, {"q": "contrat-3"})) == ["c03"]  # the file name
    assert _refs(owner_client.get(DASHBOARD, {"status": "failed"})) == ["c03"]
    assert _refs(owner_client.get(DASHBOARD, {"contract_type": "bail", "warnings": "on"})) == [
        "c02"
    ]
    assert _refs(owner_client.get(DASHBOARD, {"governing_law": "droit"})) == ["c01"]
    unknown = owner_client.get(DASHBOARD, {"governing_law": "droit martien"})
    assert unknown.status_code == 200 and len(unknown.context["problems"]) == 1
    assert _refs(unknown) == ["c01", "c02", "c03"]  # the refused filter is dropped, and said


def test_dashboard_pages_server_side_and_keeps_the_filters_in_page_links(
    room: Room, owner_client: Client, settings
):
    _many(room, 60)
    first = owner_client.get(DASHBOARD, {"contract_type": "bail"})  # 30 of them
    assert len(_refs(first)) == 30
    everything = owner_client.get(DASHBOARD, {"sort": "title", "dir": "desc"})
    assert len(_refs(everything)) == 50 and _refs(everything)[0] == "c60"
    second = owner_client.get(DASHBOARD, {"sort": "title", "dir": "desc", "page": "2"})
    assert _refs(second) == [f"c{n:02d}" for n in range(10, 0, -1)]
    assert b'href="?sort=title&amp;dir=desc&amp;page=2"' in everything.content


# --- Dashboard: links, duplicates, live state, roles -----------------------------------------


def test_rows_show_parties_amendments_and_duplicates_linking_to_the_others(
    room: Room, owner_client: Client
):
    _many(room, 4)
    page = owner_client.get(DASHBOARD).content.decode()
    assert "SCI Alpha; Beta SARL" in page
    assert 'amended by <a href="/w/deal-alpha/documents/c02/">c02</a>' in page.replace(
        "modifié par", "amended by"
    )
    assert '<a href="/w/deal-alpha/documents/c01/">c01</a></span>' in page  # c02's duplicate


def test_dashboard_query_count_does_not_grow_with_documents(
    room: Room, owner_client: Client, django_assert_max_num_queries
):
    _many(room, 120)
    # 8 for the session and the tenant scope, 10 for the page whatever its size.
    with django_assert_max_num_queries(18) as captured:
        response = owner_client.get(DASHBOARD, {"sort": "signature_date"})
    assert len(_refs(response)) == 50
    small = len(captured.captured_queries)
    with django_assert_max_num_queries(small):  # a page of 50 costs what a page of 50 costs
        owner_client.get(DASHBOARD, {"sort": "signature_date", "page": "3"})


def test_table_polls_only_while_a_document_is_being_processed(room: Room, owner_client: Client):
    document = _document(room.workspace, 1, status=DocumentStatus.PARSED)
    partial = owner_client.get(DASHBOARD, {"sort": "title"}, headers={"HX-Request": "true"})
    assert b"<html" not in partial.content
    assert b'hx-trigger="every 2s"' in partial.content
    assert b'hx-get="/w/deal-alpha/?sort=title"' in partial.content
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        Document.objects.filter(pk=document.pk).update(status=DocumentStatus.EMBEDDED)
    done = owner_client.get(DASHBOARD, headers={"HX-Request": "true"})
    assert b"hx-trigger" not in done.content  # swapped in, it stops the polling


def test_viewer_sees_no_upload_control_and_editor_does(room: Room, viewer_client: Client):
    upload = reverse("document_upload", args=["deal-alpha"]).encode()
    assert upload not in viewer_client.get(DASHBOARD).content
    editor = Client()
    editor.force_login(room.editor)
    assert upload in editor.get(DASHBOARD).content


def test_members_list_stays_on_the_dashboard(viewer_client: Client):
    page = viewer_client.get(DASHBOARD).content.decode()
    assert 'id="members"' in page and "owner@alpha.test" in page


def test_outsider_and_foreigner_get_the_404_of_a_missing_workspace(
    outsider_client: Client, foreigner_client: Client
):
    missing = outsider_client.get(reverse("workspace_detail", args=["no-such-room"]))
    for client in (outsider_client, foreigner_client):
        response = client.get(DASHBOARD, {"sort": "title"})
        assert response.status_code == 404 and response.content == missing.content
