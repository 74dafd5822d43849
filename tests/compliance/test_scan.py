"""Playbooks on the Brenalis room: the French due-diligence playbook (written by us) flags
what a buyer's lawyer would, each flag citing its article; flags go through their review;
re-scans and new versions keep history; bad playbook files are refused line by line."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from agents.tools import ToolError, call_tool
from compliance.models import Flag, FlagEvent, Playbook
from compliance.playbooks import PlaybookInvalid, default_playbooks, parse_playbook
from compliance.quantities import quantities
from compliance.services import playbook_import
from tests.helpers.rooms import BrenalisRoom
from workspaces.tenancy import firm_scope, workspace_scope

pytestmark = pytest.mark.django_db


@pytest.fixture
def scanned(brenalis_room: BrenalisRoom, settings) -> dict:
    settings.OLLAMA_URL = "http://127.0.0.1:9"  # no LLM: the llm rule is skipped, with why
    firm = brenalis_room.workspace.firm
    call_command(
        "load_playbooks",
        str(default_playbooks()[1]),
        "--firm",
        firm.name,
        "--assign",
        brenalis_room.workspace.slug,
        stdout=StringIO(),
    )
    result = call_tool(
        name="scan_contract",
        user=brenalis_room.owner,
        via="cli",
        arguments={"workspace": brenalis_room.workspace.slug},
    ).content
    return result


def _flags(room: BrenalisRoom) -> dict[tuple[str, str], str]:
    listing = call_tool(
        name="list_flags",
        user=room.viewer,
        via="cli",
        arguments={"workspace": room.workspace.slug, "limit": 200},
    ).content
    return {(f["contract_id"], f["rule"]): f["article"] for f in listing["flags"]}


def test_the_due_diligence_playbook_flags_what_a_buyer_looks_for(brenalis_room, scanned):
    [scan] = scanned["scans"]
    assert scan["playbook"] == "fr-due-diligence" and scan["contracts"] == 20
    assert any("changement-de-controle-consequences" in note for note in scan["not_checked"])
    flags = _flags(brenalis_room)
    assert flags[("c01", "changement-de-controle")].startswith("ARTICLE 8")
    assert flags[("c03", "exclusivite")].startswith("ARTICLE 4")
    for foreign in ("c05", "c16", "c20"):
        assert ("c", foreign) and (foreign, "droit-francais") in flags
    assert ("c10", "droit-francais") in flags  # a clause that names no law
    assert flags[("c14", "plafond-de-responsabilite")].startswith("ARTICLE 3")
    assert ("c02", "droit-francais") not in flags  # French law: nothing to say


def test_a_second_scan_raises_no_flag_twice(brenalis_room, scanned):
    again = call_tool(
        name="scan_contract",
        user=brenalis_room.owner,
        via="cli",
        arguments={"workspace": brenalis_room.workspace.slug, "contract_id": "c01"},
    ).content
    assert again["scans"][0]["flags_raised"] == 0 and again["scans"][0]["contracts"] == 1


def test_a_flag_is_reviewed_with_a_note_and_its_history_kept(brenalis_room, scanned):
    slug = brenalis_room.workspace.slug
    listing = call_tool(
        name="list_flags",
        user=brenalis_room.owner,
        via="cli",
        arguments={"workspace": slug, "contract_id": "c01"},
    ).content
    flag_id = listing["flags"][0]["flag_id"]
    with pytest.raises(ToolError) as no_note:
        call_tool(
            name="update_flag",
            user=brenalis_room.owner,
            via="cli",
            arguments={"workspace": slug, "flag_id": flag_id, "status": "dismissed", "note": "  "},
        )
    assert no_note.value.kind == "invalid_arguments"
    updated = call_tool(
        name="update_flag",
        user=brenalis_room.owner,
        via="cli",
        arguments={
            "workspace": slug,
            "flag_id": flag_id,
            "status": "escalated",
            "note": "À voir avec l'associé",
        },
    ).content
    assert updated["status"] == "escalated"
    with pytest.raises(ToolError) as refused:
        call_tool(
            name="update_flag",
            user=brenalis_room.viewer,
            via="cli",
            arguments={"workspace": slug, "flag_id": flag_id, "status": "resolved", "note": "ok"},
        )
    assert refused.value.kind == "forbidden"
    with workspace_scope(brenalis_room.workspace):
        [event] = FlagEvent.objects.filter(flag_id=flag_id)
    assert (event.from_status, event.to_status, event.actor) == (
        "open",
        "escalated",
        brenalis_room.owner,
    )


def test_a_new_version_keeps_the_old_one_and_its_flags(brenalis_room, scanned):
    firm = brenalis_room.workspace.firm
    spec = parse_playbook(default_playbooks()[1].read_text())
    spec.rules = [r for r in spec.rules if r.key != "exclusivite"]
    with firm_scope(firm.pk):
        playbook, created = playbook_import(firm=firm, spec=spec)
        unchanged, again = playbook_import(firm=firm, spec=spec)
    assert created and playbook.version == 2 and not again and unchanged.pk == playbook.pk
    assert Playbook.objects.get(firm=firm, key=spec.key, version=1).current is False
    with workspace_scope(brenalis_room.workspace):
        assert Flag.objects.filter(rule__key="exclusivite", rule__playbook__version=1).exists()


def test_a_contract_still_being_ingested_is_not_scanned(brenalis_room, scanned):
    from documents.models import Document

    def set_status(status: str) -> None:
        with workspace_scope(brenalis_room.workspace):
            Document.objects.filter(workspace=brenalis_room.workspace, ref="c02").update(
                status=status
            )

    set_status("chunked")
    with pytest.raises(ToolError, match=r"en cours d.import"):  # French, the default
        call_tool(
            name="scan_contract",
            user=brenalis_room.owner,
            via="cli",
            arguments={"workspace": brenalis_room.workspace.slug, "contract_id": "c02"},
        )
    set_status("embedded")


def test_a_bad_playbook_file_names_each_problem_and_its_line():
    text = (
        "key: x\ntitle: T\nrules:\n  - key: a\n    kind: regex\n    severity: high\n"
        '    pattern: "("\n    must: appear\n  - key: b\n    kind: threshold\n'
        '    clause_type: non_compete\n    severity: low\n    op: "<="\n    value: 3\n'
        "  - key: c\n    kind: required\n    clause_type: nope\n    severity: high\n"
    )
    with pytest.raises(PlaybookInvalid) as invalid:
        parse_playbook(text)
    lines = [(p.line, p.where) for p in invalid.value.problems]
    assert lines == [(4, "a"), (9, "b"), (15, "c")]
    assert "unit" in str(invalid.value) and "nope" in str(invalid.value)


@pytest.mark.parametrize(
    ("text", "quantity", "expected"),
    [
        ("pendant deux (2) ans", "months", [24.0]),
        ("un préavis de trente (30) jours", "days", [30.0]),
        ("for a period of 12 months after termination", "months", [12.0]),
        ("dans la limite de 5 % du prix", "percent", [5.0]),
        ("un plafond de 150 000 euros", "amount", [150000.0]),
    ],
)
def test_quantities_are_read_in_french_and_english(text, quantity, expected):
    assert quantities(text, quantity) == expected


def test_the_viewer_shows_a_flag_beside_the_article_it_cites(brenalis_room, scanned):
    from tests.helpers.rooms import login

    slug = brenalis_room.workspace.slug
    page = login(brenalis_room.viewer).get(f"/w/{slug}/documents/c01/").content.decode()
    article = page[page.index("ARTICLE 8") :]
    article = article[: article.index("</section>")]
    assert 'class="note note-high"' in article and "Clause de changement de contrôle" in article
    outsider = login(brenalis_room.outsider).get(f"/w/{slug}/documents/c01/")
    assert outsider.status_code == 404
