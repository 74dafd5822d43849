"""A lawyer's journey in a real browser (issue #11): log in, upload the demo data room by
dropping it on the upload page, watch the progress page update itself until processing is
finished, see the documents on the dashboard, sort them, open one; axe-core on every page.

How processing happens deterministically: the live server has no worker, so the upload only
queues the documents (as in production) and the progress page keeps polling. The test then
runs the batch in its own thread with ``run_in_process`` — the same steps a worker runs, on
the same (transactional) database — and the page, polling every second, must show the end by
itself, without a reload. No sleep, no race: the page cannot finish before the test says so.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.db.models import F

from documents.models import Document, IngestBatch
from documents.pipeline import run_in_process
from tests.helpers.browser import PLAYWRIGHT_MISSING, axe_check, screenshot
from workspaces.tenancy import tenant_scope

expect = pytest.importorskip("playwright.sync_api", reason=PLAYWRIGHT_MISSING).expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DEMO_DATAROOM = Path(settings.BASE_DIR) / "demo" / "dataroom.json"
PROCESSING_SEEN_MS = 15_000  # a few polls of 1 s after the test has processed the batch


def _drop_file(page, selector: str, path: Path) -> None:
    """Drop ``path`` on the element, as a person dragging it from their file manager would."""
    transfer = page.evaluate_handle(
        """([name, text]) => {
            const transfer = new DataTransfer();
            transfer.items.add(new File([text], name, {type: "application/json"}));
            return transfer;
        }""",
        [path.name, path.read_text(encoding="utf-8")],
    )
    page.dispatch_event(selector, "drop", {"dataTransfer": transfer})


def test_upload_the_demo_data_room_watch_it_finish_and_browse_the_documents(owner_page, room):
    page = owner_page
    axe_check(page)  # home, before anything is uploaded

    page.get_by_role("link", name="Deal Alpha").click()
    page.wait_for_url("**/w/deal-alpha/")
    page.get_by_role("link", name="Déposer des contrats").click()
    page.wait_for_url("**/w/deal-alpha/documents/upload/")
    axe_check(page)

    # Drag and drop fills the form's file input (lexroom.js); the form then posts as usual.
    _drop_file(page, "label.dropzone", DEMO_DATAROOM)
    expect(page.locator("#chosen-files")).to_have_text("dataroom.json")
    assert page.locator("#id_files").evaluate("input => input.files.length") == 1
    page.get_by_role("button", name="Déposer", exact=True).click()
    page.wait_for_url(re.compile(r"/w/deal-alpha/batches/\d+/$"))

    # Queued, not processed: the page says so and polls.
    progress = page.locator("#batch-progress")
    expect(progress.locator("h2")).to_have_text("Traitement en cours…")
    assert progress.get_attribute("hx-trigger") == "every 1s"
    expect(page.locator("table.batch-files tbody tr")).to_have_count(5)
    expect(page.locator("table.batch-files")).to_contain_text("Enregistré sous c01")
    axe_check(page)

    with tenant_scope(workspace_ids=[room.workspace.pk]):
        batch = IngestBatch.objects.get()
    run_in_process(workspace=room.workspace, batch=batch)

    # The next poll brings the end: polling stops and the documents are links.
    expect(progress.locator("h2")).to_have_text("Traitement terminé", timeout=PROCESSING_SEEN_MS)
    assert page.locator("#batch-progress").get_attribute("hx-trigger") is None
    expect(page.locator("table.batch-files a")).to_have_count(5)
    expect(page.locator("progress")).to_have_attribute("value", "5")
    axe_check(page)
    screenshot(page, "upload-progress")

    page.get_by_role("link", name="Voir les documents dans le tableau de bord").click()
    page.wait_for_url("**/w/deal-alpha/")
    rows = page.locator("table.documents tbody tr")
    expect(rows).to_have_count(5)
    assert page.locator("#document-table").get_attribute("hx-trigger") is None  # all final
    axe_check(page)
    screenshot(page, "dashboard")

    # Sort by signature date, newest first (two clicks on the heading), as the database does.
    heading = page.locator("th", has_text="Signature").get_by_role("link")
    heading.click()
    page.wait_for_url("**/w/deal-alpha/?sort=signature_date&dir=asc")
    page.locator("th", has_text="Signature").get_by_role("link").click()
    page.wait_for_url("**/w/deal-alpha/?sort=signature_date&dir=desc")
    expect(page.locator("th[aria-sort=descending]")).to_contain_text("Signature")
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        newest_first = Document.objects.order_by(F("signature_date").desc(nulls_last=True), "pk")
        expected = list(newest_first.values_list("ref", flat=True))
    shown = [cell.inner_text() for cell in rows.locator("td:first-child").all()]
    assert shown == expected

    # Open a contract from the table.
    first = shown[0]
    rows.first.get_by_role("link", name=first, exact=True).click()
    page.wait_for_url(f"**/w/deal-alpha/documents/{first}/")
    expect(page.locator("h1")).to_contain_text(first)

    # --- Search and viewer (issue #11 journey: search "exclusivité territoriale", see c03
    # with its article, open the cited article highlighted, governing law *not in* French
    # law): the search page and viewer are built on another branch; their steps go here.

    page.get_by_role("link", name="Espaces de travail").first.click()
    page.wait_for_url(re.compile(r"/$"))
    expect(page.locator("table.workspaces")).to_contain_text("à jour")
    axe_check(page)
    screenshot(page, "home")
