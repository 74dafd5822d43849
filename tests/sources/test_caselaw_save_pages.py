"""A decision saved into a workspace (a document of type decision, cut at its points, found
and cited like a contract), and the Jurisprudence pages, against the local fake sites."""

from __future__ import annotations

from typing import Any

import pytest

from agents.tools import ToolError, call_tool
from documents.models import Chunk, Document, IngestBatch
from documents.pipeline import run_in_process
from tests.helpers.rooms import Room, login
from workspaces.tenancy import workspace_scope

pytestmark = pytest.mark.django_db


def _with_conclusions(fake: Any) -> dict[str, Any]:
    return next(d for d in fake.corpus if d.get("SourceCsv7"))


def _save(room: Room, user: Any, decision_id: str) -> dict[str, Any]:
    arguments = {"workspace": "deal-alpha", "id": decision_id}
    return call_tool(name="save_decision", arguments=arguments, user=user).content


def test_a_saved_decision_is_a_document_cut_at_its_points_and_searchable(room, fake_caselaw):
    doc = _with_conclusions(fake_caselaw)
    saved = _save(room, room.editor, doc["Id"])
    assert saved["created"] is True and saved["title"].startswith("Conseil d'État")
    with workspace_scope(room.workspace):
        batch = IngestBatch.objects.get(pk=saved["batch_id"])
    run_in_process(workspace=room.workspace, batch=batch)
    with workspace_scope(room.workspace):
        document = Document.objects.get(ref=saved["contract_id"])
        refs = list(
            Chunk.objects.filter(document=document)
            .order_by("ordinal")
            .values_list("article_ref", flat=True)
        )
        assert document.contract_type == "decision" and document.source == "case_law"
        assert str(document.signature_date) == doc["SourceDateTime1"][:10]
    assert refs == ["", "visas", "1", "2", "3", "dispositif", "conclusions"]
    found = call_tool(
        name="search_data_room",
        arguments={"workspace": "deal-alpha", "query": "prévention des dangers autorisation"},
        user=room.viewer,
    ).content
    top = found["results"][0]
    assert top["contract_id"] == saved["contract_id"]
    assert top["relevant_articles"][0]["heading"] == "Point 2"  # cited as a lawyer would
    listed = call_tool(
        name="search_data_room",
        arguments={"workspace": "deal-alpha", "filters": {"contract_types": ["decision"]}},
        user=room.viewer,
    ).content
    assert [r["contract_id"] for r in listed["results"]] == [saved["contract_id"]]
    again = _save(room, room.editor, doc["Id"])
    assert again["created"] is False and again["contract_id"] == saved["contract_id"]


def test_saving_needs_the_editor_role_and_a_reachable_decision(room, fake_caselaw):
    doc = _with_conclusions(fake_caselaw)
    with pytest.raises(ToolError) as refused:
        _save(room, room.viewer, doc["Id"])
    assert refused.value.kind == "forbidden"
    with pytest.raises(ToolError) as missing:
        _save(room, room.editor, "/Ariane_Web/AW_DCE/|999999")
    assert missing.value.kind == "not_found"
    with workspace_scope(room.workspace):
        assert not Document.objects.filter(source="case_law").exists()


def test_the_search_page_lists_decisions_with_links(room, fake_caselaw):
    response = login(room.viewer).get("/jurisprudence/", {"q": "éolienne"})
    body = response.content.decode()
    assert response.status_code == 200
    assert "54 décisions" in body or "54 decisions" in body
    assert "/jurisprudence/decision/?id=%2FAriane_Web%2FAW_DCE%2F%7C" in body
    bad = login(room.viewer).get(
        "/jurisprudence/", {"q": "x", "date_from": "2024-02-01", "date_to": "2024-01-01"}
    )
    assert bad.status_code == 200 and 'role="alert"' in bad.content.decode()


def test_the_decision_page_shows_its_parts_and_saves_for_editors_only(room, fake_caselaw):
    doc = _with_conclusions(fake_caselaw)
    editor, viewer = login(room.editor), login(room.viewer)
    page = editor.get("/jurisprudence/decision/", {"id": doc["Id"]})
    body = page.content.decode()
    assert page.status_code == 200 and "Visas" in body and "point-3" in body
    assert "/jurisprudence/conclusions/?id=" in body and 'name="workspace"' in body
    assert (
        'name="workspace"'
        not in viewer.get("/jurisprudence/decision/", {"id": doc["Id"]}).content.decode()
    )
    conclusions = viewer.get("/jurisprudence/conclusions/", {"id": doc["Id"]})
    assert conclusions.status_code == 200 and "M. Public" in conclusions.content.decode()
    form = {"id": doc["Id"], "workspace": "deal-alpha", "include_conclusions": "1"}
    assert viewer.post("/jurisprudence/save/", form).status_code == 403
    assert login(room.foreigner).post("/jurisprudence/save/", form).status_code == 404
    saved = editor.post("/jurisprudence/save/", form)
    assert saved.status_code == 302 and saved["Location"].startswith("/w/deal-alpha/documents/")


def test_decision_pages_answer_bad_ids_and_failing_sites_plainly(room, fake_caselaw):
    viewer = login(room.viewer)
    assert viewer.get("/jurisprudence/decision/", {"id": "nonsense"}).status_code == 404
    missing = viewer.get("/jurisprudence/decision/", {"id": "/Ariane_Web/AW_DCE/|999999"})
    assert missing.status_code == 404
    fake_caselaw.fail_status = 503
    down = viewer.get("/jurisprudence/decision/", {"id": fake_caselaw.corpus[0]["Id"]})
    assert down.status_code == 502 and "503" in down.content.decode()


@pytest.mark.live
@pytest.mark.skipif(
    __import__("os").environ.get("LEXROOM_LIVE_TESTS") != "1",
    reason="live sites: set LEXROOM_LIVE_TESTS=1 (needs the network)",
)
def test_the_real_sites_answer_in_the_formats_we_read(room):
    ce = call_tool(
        name="search_case_law", arguments={"query": "éolienne", "limit": 3}, user=room.viewer
    ).content
    assert ce["results"] and ce["results"][0]["id"].startswith("/Ariane_Web/")
    decision = call_tool(
        name="get_decision", arguments={"id": ce["results"][0]["id"]}, user=room.viewer
    ).content
    assert decision["decision"]["text"]
    ta = call_tool(
        name="search_case_law",
        arguments={"query": "permis de construire", "jurisdiction": "TA", "limit": 3},
        user=room.viewer,
    ).content
    assert ta["results"]
