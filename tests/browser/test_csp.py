"""The Content-Security-Policy in a real browser: the admin's scripts, the Swagger UI and htmx
still run, and the check that every browser test makes (``page`` refuses CSP violations)
does see one when inline code is injected."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers.browser import log_in, note_csp_violation
from tests.helpers.rooms import Room

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def firm_admin_page(page: Any, room: Room) -> Any:
    room.owner.is_firm_admin = True
    room.owner.save(update_fields=["is_firm_admin"])
    log_in(page, room.owner.email)
    return page


def test_the_admin_runs_its_scripts_under_the_policy(firm_admin_page: Any, room: Room):
    page = firm_admin_page
    page.goto("/admin/")
    page.locator("#content h1").wait_for()
    page.goto("/admin/workspaces/workspace/")
    # actions.js: the header checkbox selects every row.
    page.locator("#action-toggle").check()
    assert page.locator("input.action-select").first.is_checked()
    page.goto(f"/admin/workspaces/workspace/{room.workspace.pk}/change/")
    page.locator("#workspace_form").wait_for()


def test_the_api_docs_render_the_schema_under_the_policy(firm_admin_page: Any):
    page = firm_admin_page
    page.goto("/api/docs/")
    # Swagger UI draws the title from the schema it fetched: its scripts ran, fetch allowed.
    page.locator(".swagger-ui .info .title").wait_for()
    assert "Lexroom API" in page.locator(".swagger-ui .info .title").inner_text()


def test_htmx_runs_without_its_injected_style(firm_admin_page: Any):
    page = firm_admin_page
    page.goto("/")
    page.wait_for_function("() => window.htmx !== undefined")
    assert page.evaluate("() => htmx.config.includeIndicatorStyles") is False
    assert page.locator("head style").count() == 0


def test_injected_inline_code_is_refused_and_reported(context: Any, room: Room):
    page = context.new_page()
    refused: list[str] = []
    page.on("console", lambda message: note_csp_violation(message, refused))
    log_in(page, room.owner.email)
    page.evaluate(
        """() => {
            const script = document.createElement("script");
            script.textContent = "window.injected = true";
            document.head.appendChild(script);
        }"""
    )
    page.wait_for_timeout(200)  # the console message arrives asynchronously
    assert page.evaluate("() => window.injected") is None
    assert refused and "script-src" in refused[0]
