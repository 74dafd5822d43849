"""The flags page on the Brenalis room: the French due-diligence playbook's flags, most severe
first and filtered from the URL; their review by editors (never viewers), with a note; the
listed flags as CSV that a spreadsheet cannot run."""

from __future__ import annotations

import csv
import io
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from agents.tools import call_tool
from compliance.export import csv_cell
from compliance.models import Flag, FlagEvent, FlagStatus
from compliance.playbooks import default_playbooks
from tests.helpers.rooms import BrenalisRoom, login
from workspaces.tenancy import workspace_scope

pytestmark = pytest.mark.django_db


@pytest.fixture
def scanned(brenalis_room: BrenalisRoom, settings) -> BrenalisRoom:
    settings.OLLAMA_URL = "http://127.0.0.1:9"  # no LLM: the llm rule is skipped, with why
    call_command(
        "load_playbooks",
        str(default_playbooks()[1]),
        "--firm",
        brenalis_room.workspace.firm.name,
        "--assign",
        brenalis_room.workspace.slug,
        stdout=StringIO(),
    )
    response = login(brenalis_room.owner).post(_url(brenalis_room, "scan/"))
    assert response.status_code == 302
    return brenalis_room


def _url(room: BrenalisRoom, rest: str = "") -> str:
    return f"/w/{room.workspace.slug}/flags/{rest}"


def _flag(room: BrenalisRoom, ref: str, rule: str) -> Flag:
    with workspace_scope(room.workspace):
        return Flag.objects.select_related("document").get(
            workspace=room.workspace, document__ref=ref, rule__key=rule
        )


def test_the_page_lists_the_scan_flags_most_severe_first(scanned):
    page = login(scanned.viewer).get(_url(scanned))
    assert page.status_code == 200
    html = page.content.decode()
    flag = _flag(scanned, "c01", "changement-de-controle")
    assert f'id="flag-{flag.pk}"' in html
    link = (
        f"/w/{scanned.workspace.slug}/documents/c01/?article={flag.chunk_id}#chunk-{flag.chunk_id}"
    )
    assert link in html
    assert "fr-due-diligence v1" in html and "changement-de-controle-consequences" in html
    ranks = [row["flag"].severity for row in page.context["rows"]]
    order = ["critical", "high", "medium", "low", "info"]
    assert ranks == sorted(ranks, key=order.index)


def test_filters_narrow_the_list_and_default_to_open_and_escalated(scanned):
    client = login(scanned.viewer)
    only_c01 = client.get(_url(scanned), {"contract": "c01"}).context["rows"]
    assert only_c01 and {r["flag"].document.ref for r in only_c01} == {"c01"}
    high = client.get(_url(scanned), {"severity": "high"}).context["rows"]
    assert high and {r["flag"].severity for r in high} == {"high"}
    flag = _flag(scanned, "c03", "exclusivite")
    with workspace_scope(scanned.workspace):
        Flag.objects.filter(pk=flag.pk).update(status=FlagStatus.RESOLVED)
    default = {r["flag"].pk for r in client.get(_url(scanned)).context["rows"]}
    assert flag.pk not in default
    resolved = client.get(_url(scanned), {"status": "resolved", "filtered": "1"}).context["rows"]
    assert [r["flag"].pk for r in resolved] == [flag.pk]
    unknown = client.get(_url(scanned), {"status": "bogus"})
    assert "bogus" in unknown.content.decode()


def test_a_viewer_sees_no_buttons_and_cannot_post(scanned):
    flag = _flag(scanned, "c01", "changement-de-controle")
    client = login(scanned.viewer)
    html = client.get(_url(scanned)).content.decode()
    assert "flag_review" not in html and f"/flags/{flag.pk}/" not in html
    refused = client.post(_url(scanned, f"{flag.pk}/"), {"status": "resolved", "note": "ok"})
    assert refused.status_code == 403
    assert client.post(_url(scanned, "scan/")).status_code == 403


def test_an_outsider_gets_the_404_of_a_missing_workspace(scanned):
    client = login(scanned.outsider)
    flag = _flag(scanned, "c01", "changement-de-controle")
    assert client.get(_url(scanned)).status_code == 404
    assert client.get(_url(scanned, "export.csv")).status_code == 404
    assert (
        client.post(_url(scanned, f"{flag.pk}/"), {"status": "open", "note": "x"}).status_code
        == 404
    )


def test_dismissing_without_a_note_is_refused_with_the_reason(scanned):
    flag = _flag(scanned, "c01", "changement-de-controle")
    response = login(scanned.owner).post(_url(scanned, f"{flag.pk}/"), {"status": "dismissed"})
    assert response.status_code == 400 and "note" in response.content.decode()
    bad = login(scanned.owner).post(_url(scanned, f"{flag.pk}/"), {"status": "x", "note": "n"})
    assert bad.status_code == 400
    assert _flag(scanned, "c01", "changement-de-controle").status == FlagStatus.OPEN


def test_escalating_with_a_note_updates_the_row_and_keeps_the_history(scanned):
    flag = _flag(scanned, "c01", "changement-de-controle")
    client = login(scanned.owner)
    row = client.post(
        _url(scanned, f"{flag.pk}/"),
        {"status": "escalated", "note": "À voir avec l'associé"},
        HTTP_HX_REQUEST="true",
    )
    assert row.status_code == 200
    html = row.content.decode()
    assert html.lstrip().startswith(f'<tr id="flag-{flag.pk}"') and "<h1>" not in html
    with workspace_scope(scanned.workspace):
        [event] = FlagEvent.objects.filter(flag_id=flag.pk)
    assert (event.from_status, event.to_status, event.note) == (
        "open",
        "escalated",
        "À voir avec l'associé",
    )
    back = client.post(
        _url(scanned, f"{flag.pk}/"), {"status": "resolved", "note": "ok", "back": "contract=c01"}
    )
    assert back.status_code == 302 and back["Location"].endswith(f"?contract=c01#flag-{flag.pk}")


def test_the_csv_export_lists_the_filtered_flags_and_runs_no_formula(scanned):
    flag = _flag(scanned, "c01", "changement-de-controle")
    with workspace_scope(scanned.workspace):
        Flag.objects.filter(pk=flag.pk).update(reason='=HYPERLINK("http://x")')
    response = login(scanned.viewer).get(_url(scanned, "export.csv"), {"contract": "c01"})
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment;")
    body = response.content.decode("utf-8")
    assert body.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(body.lstrip("\ufeff"))))
    assert len(rows[0]) == 13 and len(rows) > 1
    assert {row[0] for row in rows[1:]} == {"c01"}
    assert '\'=HYPERLINK("http://x")' in [row[9] for row in rows[1:]]


@pytest.mark.parametrize("value", ["=1+1", "+1", "-1", "@SUM(A1)"])
def test_a_cell_that_reads_as_a_formula_gets_an_apostrophe(value):
    assert csv_cell(value) == "'" + value
    assert csv_cell("Clause de loyer") == "Clause de loyer" and csv_cell(-1) == -1


def test_the_filter_form_gets_the_table_only_with_htmx(scanned):
    response = login(scanned.viewer).get(
        _url(scanned), {"severity": "high"}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith('<div id="flag-table">')
    assert "<h1>" not in html


def test_the_dashboard_links_to_the_flags(scanned):
    assert (
        _url(scanned) in login(scanned.viewer).get(f"/w/{scanned.workspace.slug}/").content.decode()
    )


def test_a_scan_without_an_assigned_playbook_says_so(brenalis_room: BrenalisRoom):
    client: Client = login(brenalis_room.owner)
    response = client.post(_url(brenalis_room, "scan/"), follow=True)
    assert response.status_code == 200
    assert any("playbook" in str(m).lower() for m in response.context["messages"])


def test_the_page_costs_the_same_queries_for_one_flag_or_all(scanned):
    client = login(scanned.viewer)
    counts = []
    for params in ({"contract": "c01", "severity": "high"}, {"filtered": "1"}):
        with CaptureQueriesContext(connection) as queries:
            page = client.get(_url(scanned), params)
        counts.append((len(page.context["rows"]), len(queries)))
    (few, few_queries), (many, many_queries) = counts
    assert few < many and few_queries == many_queries


def test_the_xlsx_export_keeps_formula_like_text_as_text(brenalis_room, settings):
    from openpyxl import load_workbook

    settings.OLLAMA_URL = "http://127.0.0.1:9"
    slug = brenalis_room.workspace.slug
    call_command(
        "load_playbooks",
        str(default_playbooks()[1]),
        "--firm",
        brenalis_room.workspace.firm.name,
        "--assign",
        slug,
        stdout=StringIO(),
    )
    call_tool(
        name="scan_contract",
        user=brenalis_room.owner,
        via="cli",
        arguments={"workspace": slug, "contract_id": "c01"},
    )
    with workspace_scope(brenalis_room.workspace):
        Flag.objects.filter(workspace=brenalis_room.workspace).update(reason="=HYPERLINK(1)")
    response = login(brenalis_room.viewer).get(f"/w/{slug}/flags/export.xlsx")
    assert response["Content-Disposition"].endswith('.xlsx"')
    sheet = load_workbook(io.BytesIO(response.content)).active
    rows = list(sheet.iter_rows(values_only=True))
    assert rows[0][0] == "Contrat" and rows[1][0] == "c01"
    reason = sheet.cell(row=2, column=10)
    assert reason.value == "=HYPERLINK(1)" and reason.data_type == "s"


def test_with_a_worker_the_scan_is_queued_and_the_page_follows_it(
    brenalis_room, settings, monkeypatch, django_capture_on_commit_callbacks
):
    from compliance.models import Scan
    from compliance.tasks import scan_task

    settings.OLLAMA_URL = "http://127.0.0.1:9"
    slug = brenalis_room.workspace.slug
    call_command(
        "load_playbooks",
        str(default_playbooks()[1]),
        "--firm",
        brenalis_room.workspace.firm.name,
        "--assign",
        slug,
        stdout=StringIO(),
    )
    monkeypatch.setattr("compliance.views.live_clusters", lambda: ["a worker"])
    client = login(brenalis_room.owner)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        response = client.post(f"/w/{slug}/flags/scan/", {"back": ""})
    assert response.status_code == 302 and len(queued) == 1
    with workspace_scope(brenalis_room.workspace):
        scan = Scan.objects.get(workspace=brenalis_room.workspace)
    assert scan.status == "queued"
    part = client.get(f"/w/{slug}/flags/?part=scan", HTTP_HX_REQUEST="true").content.decode()
    assert 'hx-trigger="every 2s"' in part and "En file" in part
    assert scan_task(workspace_id=scan.workspace_id, scan_id=scan.pk, language="fr") == "done"
    assert scan_task(workspace_id=scan.workspace_id, scan_id=scan.pk, language="fr") == "done"
    part = client.get(f"/w/{slug}/flags/?part=scan", HTTP_HX_REQUEST="true").content.decode()
    assert "every 2s" not in part and "20 contrats vérifiés sur 20" in part
    with workspace_scope(brenalis_room.workspace):
        assert Flag.objects.filter(scan=scan).count() >= 7  # once: the second delivery did nothing


def test_a_rescan_keeps_the_lawyer_s_decision_and_the_note_is_shown_everywhere(scanned):
    client = login(scanned.owner)
    flag = _flag(scanned, "c03", "exclusivite")
    note = "Exclusivité acceptée par le client (courriel du 3 mars)"
    reviewed = client.post(_url(scanned, f"{flag.pk}/"), {"status": "dismissed", "note": note})
    assert reviewed.status_code == 302
    with workspace_scope(scanned.workspace):
        before = Flag.objects.filter(workspace=scanned.workspace).count()
    assert client.post(_url(scanned, "scan/")).status_code == 302  # the same clauses again
    with workspace_scope(scanned.workspace):
        after = Flag.objects.filter(workspace=scanned.workspace)
        assert after.count() == before  # nothing raised twice, the dismissed one not reopened
        same_rule = after.filter(document__ref="c03", rule__key="exclusivite")
        assert [(f.pk, f.status) for f in same_rule] == [(flag.pk, FlagStatus.DISMISSED)]
    # The note on the flags page (listed with its status), in the export and in the viewer.
    page = client.get(_url(scanned), {"status": "dismissed", "filtered": "1"}).content.decode()
    assert note in page and scanned.owner.email in page
    export = client.get(_url(scanned, "export.csv"), {"status": "dismissed", "filtered": "1"})
    rows = list(csv.reader(io.StringIO(export.content.decode())))
    noted = [row for row in rows if note in row]
    assert noted and scanned.owner.email in noted[0]
    viewer = client.get(f"/w/{scanned.workspace.slug}/documents/c03/").content.decode()
    assert note in viewer


def test_the_clause_fingerprint_ignores_spacing_and_case_not_wording():
    from compliance.articles import Article
    from compliance.scanning import clause_fingerprint

    same = Article(1, "ARTICLE 4", "4", 1, "L'exclusivité  est TERRITORIALE.", frozenset(), None)
    spaced = Article(2, "ARTICLE 4", "4", 1, "l'exclusivité est territoriale.", frozenset(), None)
    changed = Article(3, "ARTICLE 4", "4", 1, "L'exclusivité est levée.", frozenset(), None)
    assert clause_fingerprint(same) == clause_fingerprint(spaced)  # re-ingested, re-spaced
    assert clause_fingerprint(same) != clause_fingerprint(changed)
    assert clause_fingerprint(None) == "absent"
