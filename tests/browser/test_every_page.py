"""axe-core on the pages the journeys do not reach (issue #11: every page, 0 serious or
critical violations), in French and in English, and the English pages as a viewer sees them."""

from __future__ import annotations

import pytest

from tests.browser.conftest import axe_check, log_in
from workspaces.tokens import token_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_remaining_pages_have_no_serious_accessibility_violation(page, room, language):
    token, _raw = token_create(user=room.owner, name="laptop", workspaces=[room.workspace])
    room.owner.language = language
    room.owner.save(update_fields=["language"])
    log_in(page, room.owner.email)
    slug = room.workspace.slug
    for path in (
        "/",
        f"/w/{slug}/",
        f"/w/{slug}/search/",
        f"/w/{slug}/search/?signed_after=not-a-date",  # the error message on the page
        f"/w/{slug}/documents/upload/",
        "/tokens/",
        f"/tokens/{token.pk}/revoke/",
        "/password/",
        "/llm/",  # model status (no Ollama here: the page with its alert)
        f"/w/{slug}/chat/",  # the chat, no conversation yet
        f"/w/{slug}/flags/",  # compliance flags, none yet
    ):
        page.goto(path)
        assert page.locator("html").get_attribute("lang") == language
        axe_check(page)


def test_a_viewer_sees_the_dashboard_without_upload_and_it_is_accessible(page, room):
    log_in(page, room.viewer.email)
    page.goto(f"/w/{room.workspace.slug}/")
    assert page.locator(f'a[href="/w/{room.workspace.slug}/documents/upload/"]').count() == 0
    axe_check(page)
