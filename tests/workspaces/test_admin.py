"""The Django admin: firm admins only, each confined to their own firm."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.helpers.rooms import Room

pytestmark = pytest.mark.django_db


def test_plain_member_is_sent_to_the_admin_login(viewer_client: Client):
    response = viewer_client.get("/admin/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_outsider_cannot_use_the_admin(outsider_client: Client):
    assert outsider_client.get("/admin/workspaces/workspace/").status_code == 302


def test_firm_admin_sees_only_their_firm(firm_admin_client: Client, room: Room):
    workspaces = firm_admin_client.get("/admin/workspaces/workspace/")
    assert workspaces.status_code == 200
    assert b"deal-alpha" in workspaces.content
    assert b"deal-beta" not in workspaces.content
    users = firm_admin_client.get("/admin/workspaces/user/")
    assert b"viewer@alpha.test" in users.content
    assert b"someone@beta.test" not in users.content


def test_firm_admin_cannot_open_another_firms_workspace(firm_admin_client: Client, room: Room):
    url = f"/admin/workspaces/workspace/{room.foreign_workspace.pk}/change/"
    response = firm_admin_client.get(url)
    assert response.status_code == 302  # the admin's "does not exist" redirect
    assert (
        firm_admin_client.get(
            f"/admin/workspaces/workspace/{room.workspace.pk}/change/"
        ).status_code
        == 200
    )


def test_audit_trail_is_read_only(firm_admin_client: Client):
    assert firm_admin_client.get("/admin/workspaces/auditevent/").status_code == 200
    assert firm_admin_client.get("/admin/workspaces/auditevent/add/").status_code == 403
