"""revoke_token and list_tokens: audited revocation, listings that never show the secret."""

from __future__ import annotations

import json

import pytest
from django.core.management.base import CommandError

from tests.helpers.commands import run_command as run
from tests.helpers.rooms import Room
from workspaces.models import AuditEvent, PersonalToken
from workspaces.tenancy import firm_scope
from workspaces.tokens import token_authenticate, token_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("english")]


def test_revoke_token_by_id_revokes_audits_and_the_token_stops_authenticating(room: Room):
    token, raw = token_create(user=room.viewer, name="laptop")
    assert token_authenticate(raw) is not None

    output = run("revoke_token", "--id", str(token.pk))

    assert "Revoked" in output and token.prefix in output
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert token_authenticate(raw) is None
    with firm_scope(room.firm.pk):
        event = AuditEvent.objects.get(action="token.revoke")
    assert event.actor_label == "system:revoke_token"
    assert token.prefix in event.target


def test_revoke_token_again_is_harmless_and_not_audited_twice(room: Room):
    token, _ = token_create(user=room.viewer, name="laptop")
    run("revoke_token", "--id", str(token.pk))
    assert "already revoked" in run("revoke_token", "--id", str(token.pk))
    with firm_scope(room.firm.pk):
        assert AuditEvent.objects.filter(action="token.revoke").count() == 1


def test_revoke_token_all_revokes_every_live_token_of_that_user_only(room: Room):
    _, first_raw = token_create(user=room.viewer, name="one")
    _, second_raw = token_create(user=room.viewer, name="two")
    _, other_raw = token_create(user=room.editor, name="editor's")

    output = run("revoke_token", "--user", "Viewer@Alpha.test", "--all")

    assert output.count("Revoked") == 2
    assert token_authenticate(first_raw) is None
    assert token_authenticate(second_raw) is None
    assert token_authenticate(other_raw) is not None
    with firm_scope(room.firm.pk):
        assert AuditEvent.objects.filter(action="token.revoke").count() == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "Pass --id ID or --user EMAIL --all."),
        (("--id", "999999"), "No token with id 999999."),
        (("--user", "nobody@alpha.test", "--all"), "No user nobody@alpha.test."),
        (("--user", "viewer@alpha.test"), "--user needs --all"),
        (("--id", "1", "--user", "viewer@alpha.test", "--all"), "not both"),
    ],
)
def test_revoke_token_bad_input_is_one_clear_error(room: Room, args, message):
    with pytest.raises(CommandError) as error:
        run("revoke_token", *args)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_list_tokens_shows_every_column_but_never_the_hash(room: Room):
    token_create(
        user=room.viewer, name="ci", workspaces=[room.workspace], read_only=True, expires_days=30
    )
    revoked, revoked_raw = token_create(user=room.viewer, name="old laptop")
    token_authenticate(revoked_raw, client="192.0.2.7")
    run("revoke_token", "--id", str(revoked.pk))

    table = run("list_tokens", "--user", "viewer@alpha.test")
    listed = json.loads(run("list_tokens", "--user", "viewer@alpha.test", "--json"))

    header, *lines = table.splitlines()
    assert header.split()[:4] == ["ID", "PREFIX", "NAME", "WORKSPACES"]
    assert len(lines) == 2
    assert "deal-alpha" in table and "192.0.2.7" in table and "never" in table
    by_name = {entry["name"]: entry for entry in listed}
    assert by_name["ci"]["workspaces"] == ["deal-alpha"]
    assert by_name["ci"]["read_only"] is True
    assert by_name["old laptop"]["workspaces"] == []
    assert by_name["old laptop"]["revoked_at"] is not None
    assert by_name["old laptop"]["last_used_from"] == "192.0.2.7"
    for token in PersonalToken.objects.filter(user=room.viewer):
        assert token.token_hash not in table
        assert token.token_hash not in json.dumps(listed)
    assert revoked_raw not in table


def test_list_tokens_for_an_unknown_user_is_an_error(room: Room):
    with pytest.raises(CommandError, match=r"No user nobody@alpha\.test"):
        run("list_tokens", "--user", "nobody@alpha.test")
