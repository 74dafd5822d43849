"""Real-browser tests: Debian's chromium driven by Playwright against pytest-django's
``live_server`` (a threaded WSGI server on the test database, static files served).

Fixtures
    ``browser``     the session's chromium (headless), or a skip when it is missing
    ``context``     a fresh browser context per test: 1280x800, clipboard allowed
    ``page``        a page of that context; ``page.goto("/tokens/")`` is relative to the server;
                    fails the test when the browser refused anything under the CSP
    ``owner_page``  ``page`` signed in as ``room.owner`` through the real login form
Helpers (tests/helpers/browser.py)
    ``log_in(page, email)``     sign in through the login form (and land on the home page)
    ``axe_check(page)``         axe-core on the current page; fails on serious/critical issues
    ``screenshot(page, name)``  saves docs/screenshots/<name>.png (committed; README shows them)

Mark every test module ``pytestmark = [pytest.mark.browser, pytest.mark.django_db(...)]``
(the live server needs a transactional database). Without chromium or Playwright the tests
are skipped with the reason, unless ``LEXROOM_REQUIRE_BROWSER=1`` (CI), where that fails.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.browser import PLAYWRIGHT_MISSING, log_in, note_csp_violation
from tests.helpers.rooms import Room

CHROMIUM = os.environ.get("LEXROOM_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
VIEWPORT = {"width": 1280, "height": 800}  # a 13-inch laptop: the narrowest screen we support
TIMEOUT_MS = 5_000  # a page of ours answers in milliseconds; waiting longer hides a bug


def _missing_browser() -> str:
    """Why the browser tests cannot run here ('' when they can)."""
    try:
        import axe_playwright_python  # noqa: F401
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return PLAYWRIGHT_MISSING
    if not Path(CHROMIUM).exists():
        return f"no chromium at {CHROMIUM} (apt-get install chromium, or set LEXROOM_CHROMIUM)"
    return ""


# Per module, not per session: Playwright's sync API keeps an asyncio loop running in this
# thread while it is open, and a later test that runs its own loop (anyio.run in the MCP
# tests) would fail with "Already running asyncio in this thread".
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    reason = _missing_browser()
    if reason:
        if os.environ.get("LEXROOM_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests required but cannot run: {reason}")
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread, so Django's guard against
    # database calls from async code would refuse the fixtures' ORM calls. They are
    # synchronous; the live server answers from its own thread.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def context(browser: Any, live_server: Any) -> Iterator[Any]:
    browser_context = browser.new_context(
        base_url=live_server.url, viewport=VIEWPORT, locale="fr-FR"
    )
    browser_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    browser_context.set_default_timeout(TIMEOUT_MS)
    yield browser_context
    browser_context.close()


@pytest.fixture
def page(context: Any) -> Iterator[Any]:
    browser_page = context.new_page()
    # Chromium logs each thing the Content-Security-Policy refuses (an inline script or
    # style, an eval, another origin): any of them on any page fails the test.
    refused: list[str] = []
    browser_page.on("console", lambda message: note_csp_violation(message, refused))
    yield browser_page
    assert refused == [], "Content-Security-Policy violations:\n" + "\n".join(refused)


@pytest.fixture
def owner_page(page: Any, room: Room) -> Any:
    log_in(page, room.owner.email)
    return page
