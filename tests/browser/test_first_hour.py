"""A lawyer's first hour on a fresh install, in a real browser: no classifier trained, no
model to answer, the firm's default playbooks loaded as ``make run`` loads them.

Upload an English services agreement and a French distribution contract; see their titles
and plain words (no internal key); choose the playbooks on the flags page and scan; each
contract meets the playbooks written for it and only sensible flags (the English one states
its law, its cap in the firm's wording and its indemnity: the English playbook says nothing,
the due diligence flags its foreign law); dismiss the
exclusivity flag with a note, scan again, and it stays dismissed; search with a condition in
the words and see it as a filter to remove; open the cited article; ask the chat with no
model running and get the sources.
"""

from __future__ import annotations

import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from compliance.models import Flag, FlagStatus
from documents.models import IngestBatch
from documents.pipeline import run_in_process
from tests.helpers.browser import PLAYWRIGHT_MISSING, axe_check
from workspaces.tenancy import workspace_scope

expect = pytest.importorskip("playwright.sync_api", reason=PLAYWRIGHT_MISSING).expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ENGLISH = """MASTER SERVICES AGREEMENT

This Master Services Agreement is made on 1 March 2024 between Northwind Analytics Inc.
("Provider") and Contoso Retail LLC ("Customer").

1. SERVICES
Provider shall provide the analytics services described in Schedule A.

2. FEES
Customer shall pay the fees within thirty (30) days of each invoice.

3. LIMITATION OF LIABILITY
Each party's total aggregate liability arising out of or in connection with this Agreement
shall not exceed the fees paid or payable in the twelve months preceding the event giving rise
to the claim.

4. INDEMNIFICATION
Provider shall indemnify, defend and hold harmless Customer from and against any third-party
claim that the services infringe that third party's intellectual property rights.

5. GOVERNING LAW
This Agreement shall be governed by and construed in accordance with the laws of the State of
New York.
"""

FRENCH = """CONTRAT DE DISTRIBUTION EXCLUSIVE

Entre la société Vignes du Sud SAS, ci-après dénommée le « Fournisseur », et la société
Cavavin SARL, ci-après dénommée le « Distributeur ».

ARTICLE 1 — OBJET
Le Fournisseur confie au Distributeur la distribution de ses vins dans les conditions
ci-après.

ARTICLE 2 — EXCLUSIVITÉ TERRITORIALE
Le Fournisseur concède au Distributeur l'exclusivité de la distribution des produits sur le
territoire de la région Occitanie. Le Fournisseur s'interdit de vendre directement ou par un
autre distributeur sur ce territoire pendant toute la durée du contrat.

ARTICLE 3 — DURÉE
Le présent contrat est conclu le 15 janvier 2024 pour une durée de trois ans.

ARTICLE 4 — DROIT APPLICABLE
Le présent contrat est soumis au droit français.
"""

INTERNAL_KEYS = re.compile(
    r"\b(?:anti_assignment|cap_on_liability|governing_law|signature_date|end_date|"
    r"uncapped_liability|change_of_control)\b"
)


def _upload(page, slug: str, workspace, folder: Path) -> None:
    (folder / "services-agreement.txt").write_text(ENGLISH, encoding="utf-8")
    (folder / "distribution.txt").write_text(FRENCH, encoding="utf-8")
    page.goto(f"/w/{slug}/documents/upload/")
    page.locator("#id_files").set_input_files(
        [str(folder / "services-agreement.txt"), str(folder / "distribution.txt")]
    )
    page.get_by_role("button", name="Déposer", exact=True).click()
    page.wait_for_url(re.compile(rf"/w/{slug}/batches/\d+/$"))
    with workspace_scope(workspace):
        batch = IngestBatch.objects.get()
    run_in_process(workspace=workspace, batch=batch)
    expect(page.locator("#batch-progress h2")).to_have_text("Traitement terminé", timeout=15_000)


def _no_internal_key(page) -> None:
    shown = page.locator("main").inner_text()
    assert not INTERNAL_KEYS.search(shown), INTERNAL_KEYS.search(shown)


def _scan(page) -> None:
    page.get_by_role("button", name="Analyser l\u2019espace", exact=True).click()
    page.wait_for_url(re.compile(r"/flags/"))


def _flag_rows(page, contract_title: str):
    return page.locator("table.flags tbody tr", has_text=contract_title)


def test_a_lawyers_first_hour(owner_page, room, tmp_path, settings):
    settings.OLLAMA_URL = "http://127.0.0.1:9"  # no model runs on this install
    call_command("load_playbooks", "--firm", room.firm.name, stdout=StringIO())
    page, slug = owner_page, room.workspace.slug
    _upload(page, slug, room.workspace, tmp_path)

    # The dashboard calls each contract by the title read at its head, in plain words.
    page.goto(f"/w/{slug}/")
    table = page.locator("main table").first
    expect(table).to_contain_text("MASTER SERVICES AGREEMENT")
    expect(table).to_contain_text("CONTRAT DE DISTRIBUTION EXCLUSIVE")
    _no_internal_key(page)
    table.locator("tr", has_text="CONTRAT DE DISTRIBUTION EXCLUSIVE").get_by_role("link").click()
    expect(page.locator("main")).to_contain_text("EXCLUSIVITÉ TERRITORIALE")
    _no_internal_key(page)

    # The owner chooses both default playbooks on the flags page, then scans.
    page.goto(f"/w/{slug}/flags/")
    for box in page.locator("input[name=playbook]").all():
        box.check()
    page.get_by_role("button", name="Enregistrer", exact=True).click()
    _scan(page)
    _no_internal_key(page)
    english = _flag_rows(page, "MASTER SERVICES AGREEMENT")
    french = _flag_rows(page, "CONTRAT DE DISTRIBUTION EXCLUSIVE")
    # The English playbook checks the English contract only; the due diligence reads both
    # (a buyer reviews every contract of the target): the foreign law is what it flags.
    expect(french.filter(has_text="en-commercial")).to_have_count(0)
    # The English contract states its law, its cap in the firm's wording and its indemnity:
    # the English playbook finds nothing to say.
    expect(english.filter(has_text="en-commercial")).to_have_count(0)
    expect(
        english.filter(has_text="fr-due-diligence").filter(has_text="GOVERNING LAW")
    ).to_have_count(1)
    expect(french.filter(has_text="Droit applicable")).to_have_count(0)
    exclusivity = french.filter(has_text="EXCLUSIVITÉ TERRITORIALE").filter(
        has_text="fr-due-diligence"
    )
    expect(exclusivity).to_have_count(1)
    axe_check(page)

    # Dismissed with a note; a second scan does not raise it again.
    exclusivity.get_by_label("Note (pourquoi)").fill("Exclusivité voulue par le client.")
    exclusivity.get_by_role("button", name="Écarter", exact=True).click()
    expect(page.locator("table.flags")).to_contain_text("Exclusivité voulue par le client.")
    _scan(page)
    page.goto(f"/w/{slug}/flags/?filtered=1&status=open&status=escalated&status=dismissed")
    dismissed = _flag_rows(page, "CONTRAT DE DISTRIBUTION EXCLUSIVE").filter(
        has_text="EXCLUSIVITÉ TERRITORIALE"
    )
    expect(dismissed).to_have_count(1)
    expect(dismissed).to_contain_text("Écartée")
    expect(dismissed).to_contain_text("Exclusivité voulue par le client.")
    with workspace_scope(room.workspace):
        exclusivity_flags = Flag.objects.filter(rule__clause_type="exclusivity")
        assert list(exclusivity_flags.values_list("status", flat=True)) == [FlagStatus.DISMISSED]

    _search_with_a_condition(page, slug)
    _ask_without_a_model(page, slug)


def _search_with_a_condition(page, slug: str) -> None:
    """A condition in the words is a filter the lawyer sees and can remove; the clause query
    lists the contract that has the clause and cites its article."""
    page.goto(f"/w/{slug}/search/")
    query = "exclusivité territoriale des contrats soumis au droit français"
    page.get_by_label("Termes à rechercher dans les contrats").fill(query)
    page.get_by_role("button", name="Recherche", exact=True).click()
    page.wait_for_url(re.compile(r"/search/\?q=exclusivit"))
    chip = page.locator("#interpreted li.chip[data-field=governing_law]")
    expect(chip).to_contain_text("droit français")
    hits = page.locator("article.hit")
    expect(hits).to_have_count(1)
    expect(hits.first).to_contain_text("CONTRAT DE DISTRIBUTION EXCLUSIVE")
    chip.locator("a.chip-remove").click()
    page.wait_for_url(re.compile(r"ignore=governing_law"))
    expect(page.locator("#interpreted li.chip[data-field=governing_law]")).to_have_count(0)
    hits.first.get_by_role("link", name=re.compile("EXCLUSIVITÉ TERRITORIALE")).first.click()
    page.wait_for_url(re.compile(r"article=\d+"))
    expect(page.locator("main")).to_contain_text("région Occitanie")


def _ask_without_a_model(page, slug: str) -> None:
    page.goto(f"/w/{slug}/chat/")
    expect(page.locator("main")).to_contain_text("Aucun modèle")
    page.get_by_label(re.compile("Votre question")).fill("Quelle exclusivité est accordée ?")
    page.get_by_role("button", name="Demander", exact=True).click()
    page.wait_for_url(re.compile(rf"/w/{slug}/chat/\d+/"))
    turn = page.locator("article.turn").first
    expect(turn).to_contain_text("EXCLUSIVITÉ TERRITORIALE", timeout=30_000)
    axe_check(page)
