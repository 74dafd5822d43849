"""The language switch of the top bar: saved on the account, or a cookie before sign-in;
always back to a page of this site."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.helpers.rooms import Room
from workspaces.tokens import token_create

pytestmark = pytest.mark.django_db

SWITCH = "/language/"


def test_a_signed_in_user_switches_to_english_and_back(room: Room, owner_client: Client):
    assert "Vos espaces de travail" in owner_client.get("/").content.decode()
    response = owner_client.post(SWITCH, {"language": "en", "next": "/tokens/"})
    assert response.status_code == 302 and response["Location"] == "/tokens/"
    room.owner.refresh_from_db()
    assert room.owner.language == "en"
    home = owner_client.get("/").content.decode()
    assert '<html lang="en">' in home and "Your workspaces" in home
    assert 'value="en" lang="en" title="English" aria-pressed="true"' in home
    owner_client.post(SWITCH, {"language": "fr", "next": "/"})
    assert "Vos espaces de travail" in owner_client.get("/").content.decode()


def test_an_anonymous_visitor_switches_the_login_page_with_a_cookie(client: Client):
    response = client.post(SWITCH, {"language": "en", "next": "/login/?next=/tokens/"})
    assert response["Location"] == "/login/?next=/tokens/"
    assert response.cookies["django_language"].value == "en"
    assert "Sign in" in client.get("/login/").content.decode()


@pytest.mark.parametrize(
    "next_url",
    ["https://evil.example/", "//evil.example/x", "http://evil.example", "javascript:alert(1)",
     "", "\\\\evil.example"],
)  # fmt: skip
def test_an_unsafe_or_missing_next_goes_home(owner_client: Client, next_url):
    response = owner_client.post(SWITCH, {"language": "en", "next": next_url})
    assert response.status_code == 302 and response["Location"] == "/"


def test_an_unknown_language_changes_nothing(room: Room, owner_client: Client):
    response = owner_client.post(SWITCH, {"language": "de", "next": "/"})
    assert response.status_code == 302
    room.owner.refresh_from_db()
    assert room.owner.language == ""
    assert "django_language" not in response.cookies


def test_the_switch_is_a_post_with_csrf(room: Room):
    client = Client(enforce_csrf_checks=True)
    client.force_login(room.owner)
    assert client.get(SWITCH).status_code == 405
    assert client.post(SWITCH, {"language": "en"}).status_code == 403
    room.owner.refresh_from_db()
    assert room.owner.language == ""


def test_a_bearer_token_cannot_change_the_users_language(room: Room):
    _, raw = token_create(user=room.owner, name="api")
    Client(HTTP_AUTHORIZATION=f"Bearer {raw}").post(SWITCH, {"language": "en"})
    room.owner.refresh_from_db()
    assert room.owner.language == ""


def test_the_admin_link_shows_for_firm_admins_only(room: Room, owner_client: Client):
    assert 'href="/admin/"' not in owner_client.get("/").content.decode()
    room.owner.is_firm_admin = True
    room.owner.save(update_fields=["is_firm_admin"])
    assert 'href="/admin/"' in owner_client.get("/").content.decode()


def test_the_layout_has_a_skip_link_a_status_area_and_the_menu(owner_client: Client):
    page = owner_client.get("/tokens/").content.decode()
    assert '<a class="skip-link" href="#main">' in page and '<main id="main"' in page
    assert 'role="status"' in page
    assert '<a href="/tokens/" aria-current="page">' in page
    assert "owner@alpha.test · Cabinet Alpha" in page
