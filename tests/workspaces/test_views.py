"""Login, workspace pages, and the outsider checks for each view."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import MembershipFactory, WorkspaceFactory
from tests.helpers.rooms import PASSWORD, Room

pytestmark = pytest.mark.django_db


@pytest.fixture
def english(settings):
    settings.LANGUAGE_CODE = "en"  # the texts checked word for word below


def test_login_page_renders_for_anonymous_users(client: Client):
    response = client.get(reverse("login"))
    assert response.status_code == 200
    assert b'name="username"' in response.content


def test_login_with_email_and_password_lands_on_workspaces(client: Client, room: Room):
    response = client.post(
        reverse("login"), {"username": "viewer@alpha.test", "password": PASSWORD}, follow=True
    )
    assert response.status_code == 200
    assert b"Deal Alpha" in response.content
    assert b"Deal Beta" not in response.content


def test_wrong_password_is_refused(client: Client, room: Room, english):
    response = client.post(reverse("login"), {"username": "viewer@alpha.test", "password": "x"})
    assert response.status_code == 200
    assert b"didn't match" in response.content
    assert "_auth_user_id" not in client.session


def test_pages_require_login(client: Client, room: Room):
    for url in (reverse("home"), reverse("workspace_detail", args=["deal-alpha"])):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


def test_member_sees_workspace_with_members_and_role(viewer_client: Client, english):
    response = viewer_client.get(reverse("workspace_detail", args=["deal-alpha"]))
    assert response.status_code == 200
    assert b"owner@alpha.test" in response.content
    assert b"<strong>Viewer</strong>" in response.content


def test_home_lists_nothing_for_an_outsider(outsider_client: Client, english):
    response = outsider_client.get(reverse("home"))
    assert response.status_code == 200
    assert b"Deal Alpha" not in response.content
    assert b"not a member of any workspace" in response.content


def test_outsider_and_foreigner_get_the_same_404_as_a_missing_workspace(
    outsider_client: Client, foreigner_client: Client
):
    missing = outsider_client.get(reverse("workspace_detail", args=["no-such-room"]))
    outsider = outsider_client.get(reverse("workspace_detail", args=["deal-alpha"]))
    foreign = foreigner_client.get(reverse("workspace_detail", args=["deal-alpha"]))
    assert missing.status_code == outsider.status_code == foreign.status_code == 404
    assert missing.content == outsider.content == foreign.content


def test_firm_admin_opens_any_workspace_of_their_firm_only(room: Room):
    room.outsider.is_firm_admin = True
    room.outsider.save()
    client = Client()
    client.force_login(room.outsider)
    assert client.get(reverse("workspace_detail", args=["deal-alpha"])).status_code == 200
    assert client.get(reverse("workspace_detail", args=["deal-beta"])).status_code == 404


def test_logout_requires_post_and_ends_the_session(viewer_client: Client):
    response = viewer_client.post(reverse("logout"))
    assert response.status_code == 302
    assert viewer_client.get(reverse("home")).status_code == 302


def test_password_change(room: Room):
    client = Client()
    client.force_login(room.viewer)
    response = client.post(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "a much longer passphrase 42",
            "new_password2": "a much longer passphrase 42",
        },
    )
    assert response.status_code == 302
    room.viewer.refresh_from_db()
    assert room.viewer.check_password("a much longer passphrase 42")


def test_list_page_query_count_does_not_grow_with_workspaces(
    room: Room, viewer_client: Client, django_assert_num_queries
):
    # The user's scope is one savepoint, with no settings written back at its end.
    with django_assert_num_queries(9):
        viewer_client.get(reverse("home"))
    for n in range(5):
        extra = WorkspaceFactory(firm=room.firm, slug=f"extra-{n}")
        MembershipFactory(workspace=extra, user=room.viewer)
    with django_assert_num_queries(9):
        response = viewer_client.get(reverse("home"))
    assert response.content.count(b'href="/w/extra-') == 5
