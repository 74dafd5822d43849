"""The browser tests' helpers (the fixtures are in tests/browser/conftest.py): signing in
through the form, axe-core, screenshots, and the Content-Security-Policy refusals."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from django.conf import settings

from tests.helpers.rooms import PASSWORD

SCREENSHOTS = Path(settings.BASE_DIR) / "docs" / "screenshots"
FAILING_IMPACTS = ("serious", "critical")
PLAYWRIGHT_MISSING = (
    "Playwright or axe-playwright-python is not installed (pip install -e '.[dev]')"
)


def note_csp_violation(message: Any, refused: list[str]) -> None:
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
