"""axe-core on the pages the journeys do not reach (issue #11: every page, 0 serious or
critical violations), in French and in English, and the English pages as a viewer sees them."""

from __future__ import annotations

import pytest
from django.utils import timezone

from core.embeddings import embedding_model_name
from search.models import SearchAdapter
from tests.factories import UserFactory
from tests.helpers.browser import axe_check, log_in
from workspaces.tokens import token_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_remaining_pages_have_no_serious_accessibility_violation(page, room, language):
    token, _raw = token_create(user=room.owner, name="laptop", workspaces=[room.workspace])
    room.owner.language = language
    room.owner.is_firm_admin = True  # /llm/ is for firm admins
    room.owner.save(update_fields=["language", "is_firm_admin"])
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


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_search_learning_page_has_no_serious_accessibility_violation(page, room, language):
    """A firm admin's review page, with an adapter in use and a candidate to approve."""
    admin = UserFactory(
        firm=room.firm, email="admin@alpha.test", is_firm_admin=True, language=language
    )
    for approved_at in (timezone.now(), None):
        SearchAdapter.objects.create(
            firm=room.firm, embedding_model=embedding_model_name(), dimension=2,
            weights=bytes(16), judgments=32, queries=16, approved_at=approved_at,
            metrics={"held_out_ndcg@10_before": 0.5, "held_out_ndcg@10_after": 0.6,
                     "raters": [{"user_id": room.viewer.pk, "judgments": 24, "used": 8}]},
        )  # fmt: skip
    log_in(page, admin.email)
    page.goto("/search/learning/")
    assert page.locator("html").get_attribute("lang") == language
    assert page.locator("form[action$='/approve/'] button").count() == 1
    axe_check(page)


def test_a_viewer_sees_the_dashboard_without_upload_and_it_is_accessible(page, room):
    log_in(page, room.viewer.email)
    page.goto(f"/w/{room.workspace.slug}/")
    assert page.locator(f'a[href="/w/{room.workspace.slug}/documents/upload/"]').count() == 0
    axe_check(page)
