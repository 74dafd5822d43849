"""A lawyer asks the agent in a real browser: the question posted by htmx, the answer's
events followed by lexroom.js, the answer rendered with its citation linking into the
viewer; then a call that changes data approved with the button. axe-core on the chat page.

The live server is WSGI: the events reach the page at the end of each turn (under `serve`,
ASGI, they come as they happen). The fake Ollama answers over a real socket.
"""

from __future__ import annotations

import re

import pytest

from documents.models import Chunk
from tests.helpers.agent import STOP, call, final, tools
from tests.helpers.browser import PLAYWRIGHT_MISSING, axe_check, screenshot
from tests.helpers.contracts import LEASE, ingest_entries
from workspaces.tenancy import workspace_scope

expect = pytest.importorskip("playwright.sync_api", reason=PLAYWRIGHT_MISSING).expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _room_with_a_lease(room):
    ingest_entries(room.workspace, LEASE)
    with workspace_scope(room.workspace):
        return Chunk.objects.filter(workspace=room.workspace, heading__icontains="loyer").get()


def test_ask_see_the_cited_answer_then_approve_a_rating(owner_page, room, ollama):
    chunk = _room_with_a_lease(room)
    ollama(
        tools(call("search_data_room", query="loyer")),
        STOP,
        final(answer="Le loyer annuel est de « 24 000 euros » [2].", citations=[2]),
        tools(call("rate_result", query="loyer", chunk_id=chunk.pk, relevant=True)),
        STOP,
        final(answer="J'ai marqué l'article [1] comme pertinent.", citations=[1]),
    )
    page = owner_page
    page.goto(f"/w/{room.workspace.slug}/")
    page.get_by_role("link", name="Demander à l'assistant").click()
    page.wait_for_url(f"**/w/{room.workspace.slug}/chat/")
    page.get_by_label("Votre question sur cette data room").fill("Quel est le loyer ?")
    page.get_by_role("button", name="Demander", exact=True).click()
    page.wait_for_url(re.compile(rf"/w/{room.workspace.slug}/chat/\d+/"))
    turn = page.locator("article.turn").first
    citation = turn.locator("a.citation")
    expect(citation).to_have_attribute(
        "href", f"/w/{room.workspace.slug}/documents/c01/?article={chunk.pk}#chunk-{chunk.pk}"
    )
    expect(turn.locator(".answer")).to_contain_text("24 000 euros")
    expect(turn).to_contain_text("Confiance : élevée")
    axe_check(page)
    screenshot(page, "chat")

    # A second question whose answer needs a write: the page asks before it runs.
    page.get_by_label("Votre question sur cette data room").fill("Marque cet article pertinent.")
    page.get_by_role("button", name="Demander", exact=True).click()
    second = page.locator("article.turn").nth(1)
    expect(second.get_by_role("button", name="Accepter")).to_be_visible()
    expect(second).to_contain_text("rate_result")
    second.get_by_role("button", name="Accepter").click()
    expect(second.locator(".answer")).to_contain_text("pertinent", timeout=10_000)
    page.get_by_role("link", name="Comment cette réponse a été faite (trace)").nth(1).click()
    expect(page.locator("table.trace")).to_contain_text("rate_result")
    axe_check(page)
