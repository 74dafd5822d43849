"""In a real browser: the tokens page (create, copy, MCP snippets, revoke), the language
switch, and the login page; axe-core finds no serious or critical issue."""

from __future__ import annotations

import re

import pytest

from tests.helpers.browser import PLAYWRIGHT_MISSING, axe_check, screenshot
from workspaces.models import PersonalToken

expect = pytest.importorskip("playwright.sync_api", reason=PLAYWRIGHT_MISSING).expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_login_page_is_accessible(page):
    page.goto("/login/")
    assert page.locator("h1").inner_text() == "Se connecter"
    axe_check(page)
    screenshot(page, "login")


def test_create_copy_and_revoke_a_token(owner_page, room):
    page = owner_page
    page.get_by_role("link", name="Jetons d'accès").click()
    page.wait_for_url("**/tokens/")
    axe_check(page)

    page.get_by_label("Nom").fill("Claude sur mon portable")
    page.get_by_label("Deal Alpha (deal-alpha)").check()
    page.get_by_label("Lecture seule", exact=False).check()
    page.get_by_role("button", name="Créer le jeton").click()

    token_box = page.locator("#new-token-value")
    raw = token_box.input_value()
    assert re.fullmatch(r"lxr_[\w-]{43}", raw)
    assert PersonalToken.objects.get(user=room.owner).read_only
    snippet = page.locator("#snippet-claude-code").inner_text()
    assert snippet == (
        f"claude mcp add --transport http lexroom {page.url.split('/tokens/')[0]}/mcp "
        f'--header "Authorization: Bearer {raw}"'
    )
    assert '"mcpServers"' in page.locator("#snippet-cursor").inner_text()

    copy = page.locator(".copy-row button[data-copy]")
    copy.click()
    page.locator(".copy-row .copy-status").filter(has_text="Copié").wait_for()
    assert page.evaluate("navigator.clipboard.readText()") == raw
    axe_check(page)
    screenshot(page, "tokens-created")

    # The value is on that one response: the page, opened again, does not show it.
    page.goto("/tokens/")
    assert page.locator("#new-token-value").count() == 0
    row = page.locator("tr", has_text="Claude sur mon portable")
    assert "deal-alpha" in row.inner_text() and "lecture seule" in row.inner_text()
    row.get_by_role("link", name=re.compile("Révoquer")).click()
    axe_check(page)
    page.get_by_role("button", name="Révoquer le jeton").click()
    page.wait_for_url("**/tokens/")
    expect(page.locator(".messages")).to_contain_text("révoqué")
    assert "révoqué le" in page.locator("tr", has_text="Claude sur mon portable").inner_text()
    screenshot(page, "tokens")


def test_the_language_switch_goes_to_english_and_back(owner_page):
    page = owner_page
    page.goto("/tokens/")
    page.get_by_role("button", name="EN", exact=True).click()
    # Auto-retrying assertions: the URL is the same before and after the switch.
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("h1")).to_have_text("Personal access tokens")
    english = page.get_by_role("button", name="EN", exact=True)
    expect(english).to_have_attribute("aria-pressed", "true")
    axe_check(page)
    page.get_by_role("button", name="FR", exact=True).click()
    expect(page.locator("h1")).to_have_text("Jetons d'accès personnels")
    assert page.url.endswith("/tokens/")


def test_the_skip_link_is_the_first_stop_of_the_keyboard(owner_page):
    page = owner_page
    page.keyboard.press("Tab")
    skip = page.locator(".skip-link")
    assert skip.evaluate("link => link === document.activeElement")
    assert skip.is_visible()
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"
