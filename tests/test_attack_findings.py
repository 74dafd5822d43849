"""Findings of the attack review on wip-attack: each test states the secure/expected behaviour
and FAILS on the current code (evidence, not fixes)."""

from __future__ import annotations

import contextlib
import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from django.test import Client, override_settings
from django.utils import translation

from tests.factories import UserFactory
from tests.helpers.rooms import PASSWORD, Room, login
from workspaces import auth
from workspaces.models import AuditEvent, User
from workspaces.tenancy import tenant_bypass

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english():
    with translation.override("en"):
        yield


def _audit_actions(firm) -> list[str]:
    with tenant_bypass(firm=firm, reason="test", actor_label="test"):
        return list(AuditEvent.objects.filter(firm=firm).values_list("action", flat=True))


# --- F1: a firm admin takes over an install superuser of their firm ----------------------


def test_firm_admin_cannot_set_the_password_of_an_install_superuser(room: Room):
    fadmin = UserFactory(firm=room.firm, email="fadmin@alpha.test", is_firm_admin=True)
    root = UserFactory(firm=room.firm, email="root@alpha.test", is_superuser=True)
    client = login(fadmin)

    response = client.post(
        f"/admin/workspaces/user/{root.pk}/password/",
        {
            "password1": "Escalated-Pw-123!",
            "password2": "Escalated-Pw-123!",
            "usable_password": "true",
        },
    )

    root.refresh_from_db()
    assert not root.check_password("Escalated-Pw-123!"), response.status_code


# --- F2: signed-in guesses on /admin/login/ run inside the tenant transaction -------------


@pytest.mark.django_db(transaction=True)
def test_admin_login_attempt_rows_are_committed_before_the_password_check(room: Room, monkeypatch):
    """login_attempt relies on its row being visible to concurrent attempts; for a signed-in
    user TenantMiddleware wraps the request in a transaction, so concurrent guesses do not
    see each other (measured: 12 of 12 parallel guesses checked vs 5 anonymously)."""
    seen: list[bool] = []
    original = auth.login_attempt

    def spy(**kwargs):
        seen.append(connection.in_atomic_block)
        return original(**kwargs)

    monkeypatch.setattr(auth, "login_attempt", spy)
    client = login(room.viewer)  # any account of the install
    client.post("/admin/login/", {"username": "owner@alpha.test", "password": "wrong"})
    assert seen == [False]


# --- F3: deep data-room JSON upload is a 500 ---------------------------------------------


def test_deeply_nested_dataroom_json_upload_is_refused_not_a_500(owner_client: Client):
    deep = ("[" * 100_000 + "]" * 100_000).encode()
    response = owner_client.post(
        "/api/workspaces/deal-alpha/documents/upload/",
        {"files": [SimpleUploadedFile("room.json", deep, content_type="application/json")]},
    )
    assert response.status_code == 400


# --- F4: the password-change page is an unthrottled password oracle ----------------------


def test_password_change_old_password_guesses_are_throttled(room: Room):
    client = login(room.viewer)
    for i in range(6):
        client.post(
            "/password/",
            {"old_password": f"guess {i}", "new_password1": "Zz-new-pass-987!",
             "new_password2": "Zz-new-pass-987!"},
        )  # fmt: skip
    response = client.post(
        "/password/",
        {"old_password": PASSWORD, "new_password1": "Zz-new-pass-987!",
         "new_password2": "Zz-new-pass-987!"},
    )  # fmt: skip
    assert response.status_code == 429


# --- F5: admin writes that leave no audit row --------------------------------------------


def test_firm_rename_in_the_admin_is_audited(room: Room):
    fadmin = UserFactory(firm=room.firm, email="fadmin@alpha.test", is_firm_admin=True)
    response = login(fadmin).post(
        f"/admin/workspaces/firm/{room.firm.pk}/change/",
        {
            "name": "Renamed",
            "language": "",
            "created_at_0": "2001-01-01",
            "created_at_1": "00:00:00",
        },
    )
    assert response.status_code == 302
    assert any(a.startswith("firm.") for a in _audit_actions(room.firm))


def test_document_cannot_be_deleted_in_the_admin_and_a_title_change_is_audited(
    room: Room, owner_client: Client
):
    from documents.models import Document
    from tests.helpers.contracts import CONTRACT
    from workspaces.tenancy import tenant_scope

    owner_client.post(
        "/api/workspaces/deal-alpha/documents/upload/",
        {"files": [SimpleUploadedFile("a.txt", CONTRACT.encode())]},
    )
    with tenant_scope(workspace_ids=(room.workspace.pk,)):
        document = Document.objects.get(workspace=room.workspace)
    fadmin = UserFactory(firm=room.firm, email="fadmin@alpha.test", is_firm_admin=True)
    client = login(fadmin)
    # Deleting would leave its original and word statistics behind: refused, nothing lost.
    response = client.post(f"/admin/documents/document/{document.pk}/delete/", {"post": "yes"})
    assert response.status_code == 403
    with tenant_scope(workspace_ids=(room.workspace.pk,)):
        assert Document.objects.filter(pk=document.pk).exists()
    response = client.post(
        f"/admin/documents/document/{document.pk}/change/", {"title": "Bail renommé"}
    )
    assert response.status_code == 302
    assert "document.change" in _audit_actions(room.firm)


# --- F6: ZIP amplification under the per-member ratio floor ------------------------------


def test_zip_of_many_1mib_highly_compressible_members_is_refused(owner_client: Client):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for i in range(30):
            archive.writestr(f"m{i}.txt", (f"unique{i} " + "a" * (1 << 20))[: 1 << 20])
    data = buffer.getvalue()
    assert len(data) < 40_000  # 30 MiB expanded from < 40 kB: ~900:1 overall
    response = owner_client.post(
        "/api/workspaces/deal-alpha/documents/upload/",
        {"files": [SimpleUploadedFile("amp.zip", data, content_type="application/zip")]},
    )
    assert response.json()["stored"] == []


# --- F7: README says the admin login answers a lockout with 429 + Retry-After ------------


def test_admin_login_lockout_answers_429_like_the_site_login(room: Room):
    client = Client(REMOTE_ADDR="203.0.113.10")
    for _ in range(5):
        client.post("/admin/login/", {"username": "owner@alpha.test", "password": "wrong"})
    response = client.post("/admin/login/", {"username": "owner@alpha.test", "password": PASSWORD})
    assert response.status_code == 429 and "Retry-After" in response


# --- F8: admin-created users keep the email's case (duplicate identities, cannot log in) --


def test_admin_user_creation_refuses_a_case_duplicate_email(room: Room):
    fadmin = UserFactory(firm=room.firm, email="fadmin@alpha.test", is_firm_admin=True)
    login(fadmin).post(
        "/admin/workspaces/user/add/",
        {"email": "Viewer@Alpha.test", "full_name": "dup", "firm": room.firm.pk},
    )
    assert User.objects.filter(email__iexact="viewer@alpha.test").count() == 1


# --- F9: demo_setup after the demo firm was renamed in the admin -------------------------


def test_demo_setup_survives_a_renamed_demo_firm(monkeypatch):
    from documents.management.commands import demo_setup
    from workspaces.models import Firm
    from workspaces.services import firm_get_or_create, user_get_or_create

    firm, _ = firm_get_or_create(name=demo_setup.DEMO_FIRM)
    user_get_or_create(email=demo_setup.DEMO_EMAIL, firm=firm, password="x")
    Firm.objects.filter(pk=firm.pk).update(name="Renamed by its admin")
    # `make run` runs demo_setup every time: it must not die with a traceback.
    monkeypatch.setattr(demo_setup, "DEMO_DATAROOM", demo_setup.DEMO_DATAROOM)
    out = io.StringIO()
    try:
        call_command("demo_setup", stdout=out)
    except Exception as exc:
        pytest.fail(f"demo_setup failed: {type(exc).__name__}: {exc}")
    # What `make run` prints: the firm as renamed, the login and what to try first.
    printed = out.getvalue()
    assert "Demo firm: Renamed by its admin" in printed and "Try first:" in printed


# --- F10: a rate-limited tool call still writes a row --------------------------------------


@override_settings(LEXROOM_TOOL_RATE_PER_MINUTE=1)
def test_rate_limited_tool_calls_do_not_each_write_an_audit_row(room: Room):
    from agents.tools import ToolError, call_tool

    # A fresh viewer: no refusal of an earlier test is remembered for its key (user:<pk>).
    before = len(_audit_actions(room.firm))
    for _ in range(20):
        with contextlib.suppress(ToolError):
            call_tool(name="list_workspaces", arguments={}, user=room.viewer)
    assert len(_audit_actions(room.firm)) - before <= 3
