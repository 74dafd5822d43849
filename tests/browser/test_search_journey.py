"""The rest of a lawyer's journey (issue #11) in a real browser, on the Brenalis data room
uploaded through the upload page: search "exclusivité territoriale", see c03 with its article,
mark that article relevant, open the cited article in the viewer (highlighted, scrolled into
view), then filter on governing law *not in* French law and see the contract whose law is
unknown listed apart.
axe-core on the search page and the viewer.

Processing runs in the test's thread with ``run_in_process`` once the upload is queued (the
live server has no worker), as in ``test_journey.py``.
"""

from __future__ import annotations

import re

import pytest

from documents.models import IngestBatch
from documents.pipeline import run_in_process
from tests.helpers.browser import PLAYWRIGHT_MISSING, axe_check, screenshot
from tests.helpers.data import shared_data
from workspaces.tenancy import workspace_scope

expect = pytest.importorskip("playwright.sync_api", reason=PLAYWRIGHT_MISSING).expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_search_a_clause_open_the_cited_article_and_see_what_could_not_be_decided(owner_page, room):
    brenalis = shared_data("dataroom-brenalis", "exemple_data_room.json")
    page = owner_page
    page.goto(f"/w/{room.workspace.slug}/documents/upload/")
    page.locator("#id_files").set_input_files(str(brenalis))
    page.get_by_role("button", name="Déposer", exact=True).click()
    page.wait_for_url(re.compile(rf"/w/{room.workspace.slug}/batches/\d+/$"))
    with workspace_scope(room.workspace):
        batch = IngestBatch.objects.get()
    run_in_process(workspace=room.workspace, batch=batch)
    expect(page.locator("#batch-progress h2")).to_have_text("Traitement terminé", timeout=15_000)

    # From the dashboard to the search page, then a query typed in the box.
    page.goto(f"/w/{room.workspace.slug}/")
    page.get_by_role("link", name="Rechercher dans cet espace de travail").click()
    page.wait_for_url(f"**/w/{room.workspace.slug}/search/")
    page.get_by_label("Termes à rechercher dans les contrats").fill("exclusivité territoriale")
    page.get_by_role("button", name="Recherche", exact=True).click()
    page.wait_for_url(re.compile(r"/search/\?q=exclusivit"))
    hit = page.locator("article.hit", has=page.locator("#hit-c03"))
    expect(hit).to_be_visible()
    expect(hit.locator("mark").first).to_be_visible()

    # The first cited article marked relevant: htmx swaps its buttons, the rating stays.
    def relevant_button():
        return hit.locator("form.rating").first.get_by_role("button", name="Pertinent", exact=True)

    expect(relevant_button()).to_have_attribute("aria-pressed", "false")
    relevant_button().click()
    expect(relevant_button()).to_have_attribute("aria-pressed", "true")
    expect(hit.locator("form.rating").first).to_contain_text("Retirer mon évaluation")
    page.reload()
    expect(relevant_button()).to_have_attribute("aria-pressed", "true")
    axe_check(page)
    screenshot(page, "search")

    # The cited article opens in the viewer, marked and scrolled into view.
    hit.locator("ul.articles a").first.click()
    page.wait_for_url(re.compile(r"/documents/c03/\?article=\d+#chunk-\d+$"))
    cited = page.locator("section.chunk.cited")
    expect(cited).to_have_count(1)
    expect(cited).to_have_attribute("aria-current", "location")
    expect(cited).to_be_in_viewport()
    chunk_id = re.search(r"article=(\d+)", page.url)
    assert chunk_id is not None
    assert cited.get_attribute("id") == f"chunk-{chunk_id.group(1)}"
    axe_check(page)
    screenshot(page, "viewer")

    # Governing law not French: the contract whose law is unknown is listed apart, with why.
    page.go_back()
    page.goto(f"/w/{room.workspace.slug}/search/")
    page.get_by_label("Droit applicable autre que droit français").check()
    page.get_by_role("button", name="Recherche", exact=True).click()
    page.wait_for_url(re.compile(r"law_not_in="))
    unknown = page.locator("#excluded-unknown")
    expect(unknown).to_contain_text("c10")
    expect(page.locator("#hit-c10")).to_have_count(0)
    expect(page.locator("#hit-c05")).to_be_visible()  # New York law: passes the filter
    axe_check(page)
