"""A rule may check fewer contracts than its playbook: ``applies_to`` and ``except_for`` by
language and contract type, read, refused and stored as a playbook's ``applies_to``; a contract
out of a rule's scope is not checked by it and the scan's notes say so."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.utils import translation

from agents.tools import call_tool
from compliance.models import Flag, Playbook, Scan
from compliance.playbooks import (
    PlaybookInvalid,
    default_playbooks,
    dump_playbook,
    parse_playbook,
    rule_in_scope,
)
from compliance.services import playbook_import, playbook_spec
from documents.models import Document
from tests.factories import UserFactory
from tests.helpers.contracts import ingest_entries
from tests.helpers.rooms import Room, login
from workspaces.tenancy import firm_scope, workspace_scope

HEAD = "key: p\ntitle: P\nrules:\n"
LAW = "  - key: law\n    clause_type: governing_law\n    kind: required\n    severity: low\n"
EVERYWHERE = (
    "  - key: law-everywhere\n    clause_type: governing_law\n    kind: required\n"
    "    severity: low\n"
)
EXCEPT_LEASES = "    except_for:\n      contract_types: [employment, commercial_lease]\n"


def _spec(scope: str):
    return parse_playbook(HEAD + LAW + scope)


def test_a_rules_scopes_are_read_and_written_back():
    spec = _spec(EXCEPT_LEASES + "    applies_to: {languages: [fr, fr]}\n")
    [rule] = spec.rules
    assert rule.except_for == {"contract_types": ["commercial_lease", "employment"]}
    assert rule.applies_to == {"languages": ["fr"]}
    assert spec.applies_to == {}  # the playbook's own scope is untouched
    [entry] = spec.as_data()["rules"]
    assert (entry["except_for"], entry["applies_to"]) == (rule.except_for, rule.applies_to)
    assert "except_for" not in _spec("").as_data()["rules"][0]
    for fmt in ("yaml", "json"):
        assert parse_playbook(dump_playbook(spec, fmt=fmt)) == spec


@pytest.mark.parametrize(
    ("scope", "problem"),
    [
        ("    except_for: [employment]\n", "except_for: a mapping"),
        ("    except_for: {contract_types: []}\n", "except_for.contract_types: a non-empty"),
        ("    except_for: {contract_types: [spaceship]}\n", "except_for.contract_types: spaceship"),
        ("    applies_to: {languages: [de]}\n", "applies_to.languages: de"),
        # More values than there are languages: the unknown one is named, not the length.
        ("    applies_to: {languages: [fr, en, de]}\n", "applies_to.languages: de: not one of"),
        ("    except_for: {parties: [x]}\n", "except_for.parties: unknown field"),
        ("    except_for_types: [employment]\n", "unknown fields: except_for_types"),
    ],
)
def test_a_bad_rule_scope_is_refused_with_its_rule_line_and_field(scope: str, problem: str):
    with translation.override("en"), pytest.raises(PlaybookInvalid) as refused:
        _spec(scope)
    [found] = refused.value.problems
    assert (found.line, found.where) == (4, "law")
    assert found.problem.startswith(problem), found.problem


def test_except_for_leaves_out_only_contracts_read_as_listed():
    lease_or_job = {"contract_types": ["commercial_lease", "employment"]}
    assert not rule_in_scope({}, lease_or_job, language="fr", contract_type="employment")
    assert rule_in_scope({}, lease_or_job, language="fr", contract_type="services")
    assert rule_in_scope({}, lease_or_job, language="fr", contract_type="")  # unknown: checked
    # Every field listed must name the contract: English employment contracts only.
    english_jobs = {"languages": ["en"], "contract_types": ["employment"]}
    assert not rule_in_scope({}, english_jobs, language="en", contract_type="employment")
    assert rule_in_scope({}, english_jobs, language="fr", contract_type="employment")
    assert rule_in_scope({}, english_jobs, language="", contract_type="employment")
    french = {"languages": ["fr"]}
    assert not rule_in_scope(french, {}, language="en", contract_type="services")
    assert not rule_in_scope(french, lease_or_job, language="fr", contract_type="employment")


NO_LAW = "\n\nARTICLE 1 — OBJET\nLes parties conviennent de ce qui suit.\n\nARTICLE 2 — DURÉE\n"
ENTRIES = [
    {"filename": "bail.txt", "title": "Bail commercial", "contract_type": "bail commercial",
     "content": "BAIL COMMERCIAL" + NO_LAW + "Neuf ans."},
    {"filename": "travail.txt", "title": "Travail", "contract_type": "contrat de travail",
     "content": "CONTRAT DE TRAVAIL" + NO_LAW + "Durée indéterminée."},
    {"filename": "services.txt", "title": "Prestation", "contract_type": "prestation de services",
     "content": "CONTRAT DE PRESTATION DE SERVICES" + NO_LAW + "Deux ans."},
]  # fmt: skip


@pytest.mark.django_db
def test_a_rule_does_not_check_the_contract_types_it_leaves_out(
    room: Room, tmp_path: Path, settings
):
    settings.OLLAMA_URL = "http://127.0.0.1:9"
    ingest_entries(room.workspace, *ENTRIES)
    playbook = tmp_path / "p.yaml"
    playbook.write_text(HEAD + LAW + EXCEPT_LEASES + EVERYWHERE)
    call_command("load_playbooks", str(playbook), "--firm", room.firm.name,
                 "--assign", "deal-alpha", stdout=StringIO())  # fmt: skip
    call_tool(name="scan_contract", user=room.owner, via="cli",
              arguments={"workspace": "deal-alpha"})  # fmt: skip
    with workspace_scope(room.workspace):
        types = dict(Document.objects.values_list("filename", "contract_type"))
        refs = dict(Document.objects.values_list("filename", "ref"))
        flagged = set(Flag.objects.values_list("document__filename", "rule__key"))
        notes = Scan.objects.get().skipped
    assert types == {"bail.txt": "commercial_lease", "travail.txt": "employment",
                     "services.txt": "services"}  # fmt: skip
    # None of the three names a law: the rule without a scope flags all three.
    assert {name for name, key in flagged if key == "law-everywhere"} == set(types)
    assert {name for name, key in flagged if key == "law"} == {"services.txt"}
    [note] = [note for note in notes if note.startswith("law ")]
    assert refs["bail.txt"] in note and refs["travail.txt"] in note
    assert refs["services.txt"] not in note and "2" in note


@pytest.mark.django_db
def test_a_rules_scope_survives_the_admin_export_and_a_reimport(room: Room):
    client = login(UserFactory(firm=room.firm, email="it@alpha.test", is_firm_admin=True))
    text = next(p for p in default_playbooks() if p.name.startswith("fr-")).read_text()

    def upload(body: str) -> None:
        url = "/admin/compliance/playbook/import/"
        client.post(url, {"file": SimpleUploadedFile("p.yaml", body.encode())}, follow=True)

    upload(text)
    first = Playbook.objects.get(firm=room.firm, current=True)
    rule = first.rules.get(key="droit-applicable-present")
    assert rule.except_for == {"contract_types": ["commercial_lease", "employment"]}
    exported = client.get(f"/admin/compliance/playbook/{first.pk}/export/").content.decode()
    [entry] = [r for r in yaml.safe_load(exported)["rules"] if r["key"] == rule.key]
    assert entry["except_for"] == rule.except_for
    upload(exported)  # the same rules: no new version
    assert Playbook.objects.filter(firm=room.firm).count() == 1
    # A changed scope alone is a new version, and the old one keeps its own.
    with firm_scope(room.firm.pk):
        spec = playbook_spec(first)
        spec.rules[[r.key for r in spec.rules].index(rule.key)].except_for = {}
        second, created = playbook_import(firm=room.firm, spec=spec)
    assert created and second.rules.get(key=rule.key).except_for == {}
    assert first.rules.get(key=rule.key).except_for == rule.except_for
