"""Real-browser tests: Debian's chromium driven by Playwright against pytest-django's
``live_server`` (a threaded WSGI server on the test database, static files served).

Fixtures
    ``browser``     the session's chromium (headless), or a skip when it is missing
    ``context``     a fresh browser context per test: 1280x800, clipboard allowed
    ``page``        a page of that context; ``page.goto("/tokens/")`` is relative to the server;
                    fails the test when the browser refused anything under the CSP
    ``owner_page``  ``page`` signed in as ``room.owner`` through the real login form
Helpers
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
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from tests.conftest import PASSWORD, Room

CHROMIUM = os.environ.get("LEXROOM_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
VIEWPORT = {"width": 1280, "height": 800}  # a 13-inch laptop: the narrowest screen we support
TIMEOUT_MS = 5_000  # a page of ours answers in milliseconds; waiting longer hides a bug
SCREENSHOTS = Path(settings.BASE_DIR) / "docs" / "screenshots"
FAILING_IMPACTS = ("serious", "critical")
PLAYWRIGHT_MISSING = (
    "Playwright or axe-playwright-python is not installed (pip install -e '.[dev]')"
)


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
    browser_page.on("console", lambda message: _note_csp_violation(message, refused))
    yield browser_page
    assert refused == [], "Content-Security-Policy violations:\n" + "\n".join(refused)


def _note_csp_violation(message: Any, refused: list[str]) -> None:
    if "Content Security Policy" in message.text:
        refused.append(f"{message.location.get('url', '')}: {message.text}")


def log_in(page: Any, email: str, password: str = PASSWORD) -> None:
    """Sign in through the login form, as a person would; ends on the home page."""
    page.goto("/login/")
    page.locator("#id_username").fill(email)
    page.locator("#id_password").fill(password)
    page.locator("main form button[type=submit]").click()
    # The top bar names the signed-in user; waits for the page after the login redirect.
    who = page.locator(".who")
    who.wait_for()
    assert who.inner_text().startswith(email), "not signed in"


@pytest.fixture
def owner_page(page: Any, room: Room) -> Any:
    log_in(page, room.owner.email)
    return page


def axe_check(page: Any) -> None:
    """Run axe-core (bundled, offline) on the page; fail listing serious/critical violations."""
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(page).response["violations"]
    failing = [v for v in violations if v.get("impact") in FAILING_IMPACTS]
    lines = []
    for violation in failing:
        lines.append(f"[{violation['impact']}] {violation['id']}: {violation['help']}")
        lines.append(f"    {violation['helpUrl']}")
        for node in violation["nodes"][:5]:
            lines.append(f"    at {', '.join(map(str, node['target']))}: {node['html'][:160]}")
    assert not failing, f"axe found issues on {page.url}:\n" + "\n".join(lines)


def _scratch() -> Path:
    return Path(tempfile.gettempdir()) / "lexroom-screenshots"


def screenshot(page: Any, name: str) -> Path:
    """Save the whole page as <name>.png: under docs/screenshots/ (the README shows them) when
    LEXROOM_SCREENSHOTS=1 (`make screenshots`), else in a temporary folder, so a test run
    leaves the checkout clean (each run shows a new token and port)."""
    folder = SCREENSHOTS if os.environ.get("LEXROOM_SCREENSHOTS") == "1" else _scratch()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True, animations="disabled", caret="hide")
    return path
