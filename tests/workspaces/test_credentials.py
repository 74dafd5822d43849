"""The token/session boundary, as an attacker probed it: a bearer token is an API credential
only, read-only means read-only, scopes nest, hostile JSON is a 400."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from agents.tools import call_tool
from documents.models import Document
from tests.factories import UserFactory
from tests.helpers.contracts import CONTRACT
from tests.helpers.rooms import PASSWORD, Room
from workspaces.models import AuditEvent, Membership, User
from workspaces.services import workspace_create
from workspaces.tenancy import user_scope
from workspaces.tokens import token_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def english(settings):
    settings.LANGUAGE_CODE = "en"  # the token users have no language: they get LANGUAGE_CODE


def _bearer(raw: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


@pytest.fixture
def admin_token(room: Room) -> tuple[User, str]:
    """A firm admin's read-only token, restricted to one workspace: the attacker's loot."""
    admin = UserFactory(firm=room.firm, email="admin@alpha.test", is_firm_admin=True)
    _, raw = token_create(user=admin, name="ro", workspaces=[room.workspace], read_only=True)
    return admin, raw


def test_bearer_token_cannot_create_a_user_in_the_admin(room: Room, admin_token):
    _, raw = admin_token
    client = Client()
    response = client.post(
        "/admin/workspaces/user/add/",
        {"email": "evil@alpha.test", "firm": room.firm.pk, "is_firm_admin": "on"},
        **_bearer(raw),
    )
    # Anonymous to the admin: sent to its login page, nothing created.
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]
    assert not User.objects.filter(email="evil@alpha.test").exists()


def test_bearer_token_cannot_set_another_users_password(room: Room, admin_token):
    _, raw = admin_token
    victim = room.viewer
    response = Client().post(
        f"/admin/workspaces/user/{victim.pk}/password/",
        {"password1": "pwned-pwned-42", "password2": "pwned-pwned-42"},
        **_bearer(raw),
    )
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]
    victim.refresh_from_db()
    assert victim.check_password(PASSWORD)
    assert not Client().login(username=victim.email, password="pwned-pwned-42")


def test_bearer_token_is_anonymous_on_pages(room: Room, admin_token):
    _, raw = admin_token
    client = Client()
    for url in ("/", "/w/deal-alpha/", "/w/deal-alpha/documents/", "/password/"):
        response = client.get(url, **_bearer(raw))
        assert response.status_code == 302, url
        assert response["Location"].startswith("/login/"), url


def test_read_only_token_cannot_upload_over_rest(room: Room, english):
    _, raw = token_create(user=room.owner, name="ro", read_only=True)
    response = Client().post(
        "/api/workspaces/deal-alpha/documents/upload/",
        {"files": [SimpleUploadedFile("contrat.txt", CONTRACT.encode())]},
        **_bearer(raw),
    )
    assert response.status_code == 403
    assert "read-only" in response.json()["detail"]
    with user_scope(room.owner):
        assert not Document.objects.exists()


def test_bearer_token_cannot_upload_through_the_web_form(room: Room):
    _, raw = token_create(user=room.owner, name="ro", read_only=True)
    response = Client().post(
        "/w/deal-alpha/documents/upload/",
        {"files": [SimpleUploadedFile("contrat.txt", CONTRACT.encode())]},
        **_bearer(raw),
    )
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")
    with user_scope(room.owner):
        assert not Document.objects.exists()


def test_read_write_token_upload_records_the_token_in_the_audit(room: Room):
    token, raw = token_create(user=room.owner, name="rw")
    response = Client().post(
        "/api/workspaces/deal-alpha/documents/upload/",
        {"files": [SimpleUploadedFile("contrat.txt", CONTRACT.encode())]},
        **_bearer(raw),
    )
    assert response.status_code == 202
    with user_scope(room.owner):
        events = AuditEvent.objects.filter(workspace=room.workspace).exclude(
            action="membership.set"
        )
        assert events.exists()
        assert {e.details.get("token_id") for e in events} == {token.pk}


def test_session_writes_record_no_token(room: Room, owner_client: Client):
    owner_client.post(
        "/api/workspaces/deal-alpha/documents/upload/",
        {"files": [SimpleUploadedFile("contrat.txt", CONTRACT.encode())]},
    )
    with user_scope(room.owner):
        upload_events = AuditEvent.objects.filter(action__startswith="document")
        assert upload_events.exists()
        assert all("token_id" not in e.details for e in upload_events)


def test_session_api_writes_need_csrf(room: Room):
    client = Client(enforce_csrf_checks=True)
    client.force_login(room.owner)
    response = client.post(
        "/api/workspaces/deal-alpha/documents/upload/",
        {"files": [SimpleUploadedFile("contrat.txt", CONTRACT.encode())]},
    )
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]


def test_workspace_restricted_token_sees_only_its_workspace_on_rest(room: Room):
    workspace_create(firm=room.firm, slug="deal-two", title="Two", owner=room.owner)
    _, raw = token_create(user=room.owner, name="one", workspaces=[room.workspace])
    client = Client()
    listed = client.get("/api/workspaces/", **_bearer(raw)).json()
    assert [w["slug"] for w in listed] == ["deal-alpha"]
    assert client.get("/api/workspaces/deal-two/", **_bearer(raw)).status_code == 404
    assert client.get("/api/workspaces/deal-two/documents/", **_bearer(raw)).status_code == 404


def test_tool_call_inside_a_request_scope_leaves_the_scope_intact(room: Room):
    # A REST tool call runs inside the request's scope; afterwards the same transaction
    # must still see the user's workspaces (it used to see none).
    with user_scope(room.owner):
        call_tool(name="list_workspaces", arguments={}, user=room.owner, via="rest")
        assert Membership.objects.filter(workspace=room.workspace).count() == 3


def test_json_nested_1000_deep_is_a_400(room: Room, english):
    _, raw = token_create(user=room.owner, name="rw")
    body = "[" * 1000 + "]" * 1000
    nested = '{"workspace": "deal-alpha", "filters": ' + body + "}"
    response = Client().post(
        "/api/tools/search_data_room",
        data=nested,
        content_type="application/json",
        **_bearer(raw),
    )
    assert response.status_code == 400
    assert "nested" in response.json()["detail"]


def test_tool_arguments_nested_too_deep_are_refused_by_the_registry(room: Room):
    from agents.tools import ToolError

    deep: object = {}
    for _ in range(100):
        deep = {"a": deep}
    with pytest.raises(ToolError) as refused:
        call_tool(name="search_data_room", arguments={"filters": deep}, user=room.owner)
    assert refused.value.kind == "invalid_arguments"
    assert json.dumps(refused.value.as_dict())


def test_firm_admin_with_a_viewer_membership_is_still_an_owner(room: Room):
    from workspaces.selectors import workspace_member_role
    from workspaces.services import membership_set

    admin = UserFactory(firm=room.firm, email="admin2@alpha.test", is_firm_admin=True)
    membership_set(workspace=room.workspace, user=admin, role="viewer")
    with user_scope(admin):
        assert workspace_member_role(user=admin, workspace=room.workspace) == "owner"
