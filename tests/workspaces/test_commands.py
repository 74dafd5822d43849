"""create_workspace and add_member: scriptable, idempotent, clear errors."""

from __future__ import annotations

import pytest
from django.core.management.base import CommandError

from tests.helpers.commands import run_command as run
from workspaces.models import AuditEvent, Membership, User, Workspace
from workspaces.tenancy import tenant_scope

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


def test_create_workspace_creates_firm_user_and_ownership_once(monkeypatch):
    monkeypatch.setenv("OWNER_PW", "s3cret passphrase")
    first = run(
        "create_workspace",
        "deal-x",
        "--owner",
        "Alice@Firm.test",
        "--firm",
        "Cabinet X",
        "--title",
        "Deal X",
        "--password-env",
        "OWNER_PW",
    )
    second = run("create_workspace", "deal-x", "--owner", "alice@firm.test")
    assert "Created Cabinet X/deal-x" in first
    assert "already exists" in second
    workspace = Workspace.objects.get(slug="deal-x")
    user = User.objects.get(email="alice@firm.test")
    assert user.check_password("s3cret passphrase")
    with tenant_scope(workspace_ids=[workspace.pk]):
        assert list(Membership.objects.values_list("user__email", "role")) == [
            ("alice@firm.test", "owner")
        ]
        assert AuditEvent.objects.filter(action="workspace.create").count() == 1


def test_create_workspace_without_password_gives_an_unusable_one():
    run("create_workspace", "deal-y", "--owner", "bob@firm.test")
    assert not User.objects.get(email="bob@firm.test").has_usable_password()


def test_create_workspace_rejects_bad_slug_and_empty_password_env(monkeypatch):
    with pytest.raises(CommandError, match="not a valid slug"):
        run("create_workspace", "Deal Y!", "--owner", "bob@firm.test")
    monkeypatch.setenv("EMPTY_PW", "")
    with pytest.raises(CommandError, match="EMPTY_PW"):
        run("create_workspace", "deal-y", "--owner", "bob@firm.test", "--password-env", "EMPTY_PW")


def test_add_member_sets_and_changes_role_idempotently():
    run("create_workspace", "deal-z", "--owner", "owner@firm.test", "--firm", "F")
    assert "now viewer" in run("add_member", "deal-z", "carol@firm.test", "--role", "viewer")
    assert "already viewer" in run("add_member", "deal-z", "carol@firm.test", "--role", "viewer")
    assert "now editor" in run("add_member", "deal-z", "carol@firm.test", "--role", "editor")
    workspace = Workspace.objects.get(slug="deal-z")
    with tenant_scope(workspace_ids=[workspace.pk]):
        assert Membership.objects.get(user__email="carol@firm.test").role == "editor"
        assert AuditEvent.objects.filter(action="membership.set").count() == 3


def test_add_member_errors_are_clear():
    with pytest.raises(CommandError, match="No workspace 'nope'"):
        run("add_member", "nope", "x@firm.test", "--role", "viewer")
    run("create_workspace", "deal-w", "--owner", "o@one.test", "--firm", "One")
    run("create_workspace", "other", "--owner", "o@two.test", "--firm", "Two")
    with pytest.raises(CommandError, match="belongs to firm 'Two'"):
        run("add_member", "deal-w", "o@two.test", "--role", "viewer")
    with pytest.raises(CommandError, match="invalid choice"):
        run("add_member", "deal-w", "x@one.test", "--role", "god")
