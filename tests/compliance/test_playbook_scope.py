"""A playbook checks the contracts it is written for: ``applies_to`` by language and contract
type; the others are named in the scan's notes, never flagged."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from agents.tools import call_tool
from compliance.models import Flag, Scan
from compliance.playbooks import PlaybookInvalid, default_playbooks, in_scope, parse_playbook
from documents.models import Document
from tests.helpers.contracts import AMENDMENT, CONTRACT, ingest_command
from tests.helpers.rooms import Room
from workspaces.tenancy import workspace_scope

ENGLISH = (
    "SERVICES AGREEMENT\n\nThis Services Agreement is made between Acme Ltd and Beta Inc.\n\n"
    "1. SERVICES\nThe Supplier shall provide the services described in the Schedule.\n\n"
    "2. FEES\nThe Customer shall pay the fees within thirty days of each invoice.\n"
)
FRENCH = (
    "CONTRAT DE PRESTATION DE SERVICES\n\nEntre la société Alpha SAS et la société Beta.\n\n"
    "ARTICLE 1 — OBJET\nLe prestataire fournit une assistance informatique au client.\n\n"
    "ARTICLE 2 — PRIX\nLe prix est payé dans les trente jours de la facture.\n"
)
RULES = (
    "rules:\n  - {key: r, title: R, clause_type: governing_law, kind: required, severity: low}\n"
)


def _ingest(folder: Path, *files: tuple[str, str]) -> None:
    for name, text in files:
        (folder / name).write_text(text)
    ingest_command(*(folder / name for name, _ in files))


def _scan_with_the_default_playbook(room: Room, language: str) -> None:
    """Load the default playbook of ``language`` ("en", "fr"), assign it, scan the room."""
    playbook = next(p for p in default_playbooks() if p.name.startswith(f"{language}-"))
    call_command(
        "load_playbooks", str(playbook), "--firm", room.firm.name, "--assign", "deal-alpha",
        stdout=StringIO(),
    )  # fmt: skip
    call_tool(
        name="scan_contract", user=room.owner, via="cli", arguments={"workspace": "deal-alpha"}
    )


def _spec(applies_to: str):
    return parse_playbook(f"key: p\ntitle: P\n{applies_to}{RULES}")


def test_applies_to_is_read_and_checked():
    spec = _spec("applies_to:\n  languages: [en]\n  contract_types: [nda, nda]\n")
    assert spec.applies_to == {"languages": ["en"], "contract_types": ["nda"]}
    assert spec.as_data()["applies_to"] == spec.applies_to
    assert _spec("").applies_to == {}
    for wrong, where in (
        ("applies_to: [en]\n", "applies_to"),
        ("applies_to:\n  languages: [de]\n", "applies_to.languages"),
        ("applies_to:\n  languages: []\n", "applies_to.languages"),
        ("applies_to:\n  contract_types: [spaceship_lease]\n", "applies_to.contract_types"),
        ("applies_to:\n  parties: [x]\n", "applies_to.parties"),
    ):
        with pytest.raises(PlaybookInvalid) as refused:
            _spec(wrong)
        assert [p.where for p in refused.value.problems] == [where], wrong


def test_a_contract_of_unknown_language_or_type_is_checked():
    scope = {"languages": ["en"], "contract_types": ["nda"]}
    assert in_scope(scope, language="en", contract_type="nda")
    assert in_scope(scope, language="", contract_type="")
    assert not in_scope(scope, language="fr", contract_type="nda")
    assert not in_scope(scope, language="en", contract_type="commercial_lease")
    assert in_scope({}, language="fr", contract_type="commercial_lease")


@pytest.mark.django_db
def test_the_english_playbook_checks_english_contracts_only(room: Room, tmp_path: Path, settings):
    settings.OLLAMA_URL = "http://127.0.0.1:9"  # no LLM: its rules are skipped
    _ingest(tmp_path, ("services.txt", ENGLISH), ("prestation.txt", FRENCH))
    _scan_with_the_default_playbook(room, "en")
    with workspace_scope(room.workspace):
        flagged = set(Flag.objects.values_list("document__filename", flat=True))
        scan = Scan.objects.get()
        refs = dict(Document.objects.values_list("filename", "ref"))
    assert flagged == {"services.txt"}  # no governing law, no cap: flagged
    assert scan.documents_total == 1
    # The French contract is named in the scan's notes, the English one is not.
    notes = " ".join(scan.skipped)
    assert refs["prestation.txt"] in notes and refs["services.txt"] not in notes


@pytest.mark.django_db
def test_a_governing_law_read_in_the_text_meets_the_required_rule(
    room: Room, tmp_path: Path, settings
):
    settings.OLLAMA_URL = "http://127.0.0.1:9"
    law = "This Agreement is governed by the laws of England and Wales."
    text = f"{ENGLISH}\n3. MISCELLANEOUS\n{law}\n"
    _ingest(tmp_path, ("services.txt", text))
    with workspace_scope(room.workspace):
        document = Document.objects.get()
        assert (document.governing_law, document.governing_law_source) == (
            "droit anglais",
            "text",
        )
        # As if the classifier had missed it: no article is tagged, the text says enough.
        document.chunks.update(clause_types={}, clause_type_keys=[], clause_families={})
    _scan_with_the_default_playbook(room, "en")
    with workspace_scope(room.workspace):
        rules = set(Flag.objects.values_list("rule__key", flat=True))
    assert "governing-law-present" not in rules and "liability-cap-present" in rules


@pytest.mark.django_db
def test_the_article_quoting_the_law_is_read_by_the_law_rules_even_untagged(
    room: Room, tmp_path: Path, settings
):
    from compliance.facts import facts_in_text

    settings.OLLAMA_URL = "http://127.0.0.1:9"
    law = "ARTICLE 3 — DIVERS\nLe présent contrat est soumis au droit suisse."
    _ingest(tmp_path, ("prestation.txt", f"{FRENCH}\n{law}\n"))
    with workspace_scope(room.workspace):
        document = Document.objects.get()
        quoting = document.chunks.get(text__contains="droit suisse")
        # As if the classifier had missed it: no article is tagged.
        document.chunks.update(clause_types={}, clause_type_keys=[], clause_families={})
        facts = facts_in_text(document)
    assert facts["governing_law"] == quoting.pk
    assert "parties" in facts and "document_name" in facts
    _scan_with_the_default_playbook(room, "fr")
    with workspace_scope(room.workspace):
        flags = dict(Flag.objects.values_list("rule__key", "chunk_id"))
    # Required: met by the quote. The keyword rule reads the quoting article: Swiss law.
    assert "droit-applicable-present" not in flags
    assert flags["droit-francais"] == quoting.pk


@pytest.mark.django_db
def test_facts_read_before_quotes_were_kept_still_count_without_an_article(
    room: Room, tmp_path: Path
):
    from compliance.facts import facts_in_text

    _ingest(tmp_path, ("services.txt", ENGLISH))
    with workspace_scope(room.workspace):
        document = Document.objects.get()
        document.provenance = {"renewal": {"value": "yes", "source": "text"}}
        document.governing_law, document.governing_law_source = "droit anglais", "text"
        facts = facts_in_text(document)
        document.renewal, document.provenance = {"automatic": True}, {}
        legacy = facts_in_text(document)
    # A malformed renewal record is no renewal; the law's column says "text": no place known.
    assert facts["governing_law"] is None and "renewal_term" not in facts
    assert legacy["renewal_term"] is None and "notice_period_to_terminate_renewal" not in legacy


@pytest.mark.django_db
def test_the_owner_chooses_the_playbooks_on_the_flags_page(room: Room):
    from compliance.models import WorkspacePlaybook
    from tests.helpers.rooms import login

    for playbook in default_playbooks():
        call_command("load_playbooks", str(playbook), "--firm", room.firm.name, stdout=StringIO())
    owner, editor = login(room.owner), login(room.editor)
    page = owner.get("/w/deal-alpha/flags/").content.decode()
    assert 'name="playbook" value="en-commercial"' in page
    assert 'name="playbook"' not in editor.get("/w/deal-alpha/flags/").content.decode()
    url = "/w/deal-alpha/flags/playbooks/"
    assert owner.post(url, {"playbook": ["en-commercial"]}).status_code == 302
    assert editor.post(url, {"playbook": ["fr-due-diligence"]}).status_code == 403
    refused = owner.post(url, {"playbook": ["en-commercial", "nope"]})
    assert refused.status_code == 400 and "nope" in refused.content.decode()
    with workspace_scope(room.workspace):
        assigned = list(WorkspacePlaybook.objects.values_list("playbook_key", flat=True))
    assert assigned == ["en-commercial"]  # the refused form changed nothing
    page = owner.get("/w/deal-alpha/flags/").content.decode()
    assert 'value="en-commercial" checked' in page
    assert owner.post(url, {}).status_code == 302  # none: unassigned, flags kept
    with workspace_scope(room.workspace):
        assert not WorkspacePlaybook.objects.exists()


CAP = (
    "Each party's total aggregate liability arising out of or in connection with this "
    "Agreement shall not exceed the fees paid or payable in the twelve months preceding the "
    "event giving rise to the claim."
)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("cap", "flagged"),
    [
        (CAP, False),  # the firm's own wording
        ("The Supplier's aggregate liability shall not exceed one hundred euros in any "
         "event, and the Customer's liability shall not exceed ten million euros.", True),
    ],
)  # fmt: skip
def test_the_cap_in_the_firms_wording_meets_the_position_rule(
    room: Room, tmp_path: Path, settings, cap: str, flagged: bool
):
    """The article's stored embedding carries the contract's title and parties: the position
    rule reads the clause's own text too, so the preferred wording written as is passes."""
    settings.OLLAMA_URL = "http://127.0.0.1:9"
    text = f"{ENGLISH}\n3. LIMITATION OF LIABILITY\n{cap}\n"
    _ingest(tmp_path, ("services.txt", text))
    _scan_with_the_default_playbook(room, "en")
    with workspace_scope(room.workspace):
        rules = set(Flag.objects.values_list("rule__key", flat=True))
    assert "liability-cap-present" not in rules
    assert ("liability-cap-position" in rules) is flagged


@pytest.mark.django_db
def test_an_amendment_is_not_flagged_for_the_clauses_its_contract_holds(
    room: Room, tmp_path: Path, settings
):
    """The amendment restates no governing law: the contract it amends holds it."""
    settings.OLLAMA_URL = "http://127.0.0.1:9"
    _ingest(tmp_path, ("contrat.txt", CONTRACT), ("avenant.txt", AMENDMENT))
    _scan_with_the_default_playbook(room, "fr")
    with workspace_scope(room.workspace):
        assert Document.objects.get(filename="avenant.txt").is_amendment
        flagged = set(Flag.objects.values_list("document__filename", "rule__key"))
    assert ("avenant.txt", "droit-applicable-present") not in flagged
    assert ("contrat.txt", "droit-applicable-present") not in flagged  # it states its law
