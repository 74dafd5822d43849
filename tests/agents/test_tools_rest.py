"""The tool registry over REST and the CLI: same results, same errors, tenancy and tokens."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from agents.tools import ToolError, call_tool, tool_definitions
from tests.helpers.contracts import ingest_lease_and_nda
from tests.helpers.rooms import Room
from workspaces.models import AuditEvent, PersonalToken
from workspaces.tenancy import tenant_scope
from workspaces.tokens import token_authenticate, token_create, token_revoke

pytestmark = pytest.mark.django_db


def _bearer(raw: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {raw}"}


def test_definitions_are_flat_for_small_models():
    definitions = {d["name"]: d for d in tool_definitions()}
    assert set(definitions) == {
        "list_workspaces",
        "describe_data_room",
        "search_data_room",
        "get_contract",
        "find_duplicates",
        "rate_result",
        "ask",
        "scan_contract",
        "list_flags",
        "update_flag",
        "search_legal_codes",
        "get_article",
        "follow_renvois",
        "search_case_law",
        "get_decision",
        "get_conclusions",
        "get_analysis",
        "save_decision",
    }
    assert definitions["rate_result"]["annotations"] == {"readOnlyHint": False}
    text = json.dumps(definitions)
    assert "$ref" not in text and "anyOf" not in text and "$defs" not in text
    search = definitions["search_data_room"]["inputSchema"]
    assert search["additionalProperties"] is False
    assert "governing_law" in search["properties"]["filters"]["properties"]


def test_rest_tool_call_with_token_matches_the_cli(room: Room, client: Client):
    ingest_lease_and_nda(room.workspace)
    _, raw = token_create(user=room.viewer, name="test")
    args = {"filters": {"end_date": {"before": "2030-12-31"}}}
    response = client.post(
        "/api/tools/search_data_room",
        data=json.dumps({**args, "workspace": "deal-alpha"}),
        content_type="application/json",
        headers=_bearer(raw),
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["results"] == []
    assert [u["contract_id"] for u in body["excluded_unknown"]] == ["c02"]
    out = StringIO()
    call_command(
        "call_tool",
        "search_data_room",
        json.dumps(args),
        "--workspace",
        "deal-alpha",
        "--user",
        room.viewer.email,
        stdout=out,
    )
    assert json.loads(out.getvalue()) == body
    assert AuditEvent.objects.filter(action="tool.call").exists() is False  # RLS: no scope
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        event = AuditEvent.objects.filter(action="tool.call").first()
        assert event is not None and event.details["via"] in {"rest", "cli"}


def test_cli_invalid_arguments_print_error_json_and_exit_2(room: Room, capsys):
    out = StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command(
            "call_tool",
            "search_data_room",
            '{"limit": "many"}',
            "--workspace",
            "deal-alpha",
            "--user",
            room.viewer.email,
            stdout=out,
        )
    assert exited.value.code == 2
    error = json.loads(out.getvalue())
    assert error["error"] == "invalid_arguments" and "limit" in error["message"]


def test_outsider_token_never_sees_another_workspace(room: Room, client: Client):
    ingest_lease_and_nda(room.foreign_workspace)
    _, raw = token_create(user=room.viewer, name="a")
    responses = []
    for slug in ("deal-beta", "no-such-room"):
        responses.append(
            client.post(
                "/api/tools/get_contract",
                data=json.dumps({"workspace": slug, "contract_id": "c01"}),
                content_type="application/json",
                headers=_bearer(raw),
            )
        )
    assert [r.status_code for r in responses] == [404, 404]
    foreign, missing = (r.json() for r in responses)
    assert foreign["error"] == missing["error"] == "not_found"
    assert foreign["details"]["allowed"] == missing["details"]["allowed"] == ["deal-alpha"]
    with pytest.raises(ToolError) as error:
        call_tool(name="describe_data_room", arguments={"workspace": "deal-beta"}, user=room.viewer)
    assert error.value.kind == "not_found"


def test_token_restricted_to_a_workspace(room: Room, client: Client):
    token, raw = token_create(user=room.foreigner, name="r", workspaces=[room.foreign_workspace])
    assert token.workspace_ids == [room.foreign_workspace.pk]
    listing = client.post(
        "/api/tools/list_workspaces",
        data="{}",
        content_type="application/json",
        headers=_bearer(raw),
    )
    assert [w["workspace"] for w in listing.json()["workspaces"]] == ["deal-beta"]


def test_revoked_expired_and_garbage_tokens_get_401(room: Room, client: Client):
    token, raw = token_create(user=room.viewer, name="x")
    token_revoke(token=token, actor=room.viewer)
    expired, raw_expired = token_create(user=room.viewer, name="y", expires_days=1)
    PersonalToken.objects.filter(pk=expired.pk).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    for candidate in (raw, raw_expired, "lxr_nonsense", "Basic abc"):
        response = client.get("/api/tools", headers=_bearer(candidate))
        assert response.status_code == 401
        assert response["WWW-Authenticate"].startswith("Bearer")
    assert client.get("/api/tools").status_code == 401  # no credentials at all


def test_tokens_are_stored_hashed_and_shown_once(room: Room):
    token, raw = token_create(user=room.viewer, name="z", read_only=True)
    assert raw.startswith("lxr_") and raw not in token.token_hash
    assert token_authenticate(raw) == token
    out, err = StringIO(), StringIO()
    call_command(
        "create_token",
        "--user",
        room.viewer.email,
        "--read-only",
        "--workspace",
        "deal-alpha",
        stdout=out,
        stderr=err,
    )
    printed = out.getvalue().strip()
    # The command speaks LANGUAGE_CODE, French unless set otherwise.
    assert printed.startswith("lxr_") and "(lecture seule" in err.getvalue()
    assert not PersonalToken.objects.filter(token_hash=printed).exists()


def test_rest_errors_are_clean(room: Room, client: Client):
    _, raw = token_create(user=room.viewer, name="e")
    unknown = client.post(
        "/api/tools/drop_tables", data="{}", content_type="application/json", headers=_bearer(raw)
    )
    assert unknown.status_code == 404 and "search_data_room" in unknown.json()["details"]["allowed"]
    not_object = client.post(
        "/api/tools/list_workspaces",
        data="[1]",
        content_type="application/json",
        headers=_bearer(raw),
    )
    assert not_object.status_code == 400
    extra = client.post(
        "/api/tools/search_data_room",
        data='{"bogus": 1}',
        content_type="application/json",
        headers=_bearer(raw),
    )
    assert extra.status_code == 400 and "bogus" in extra.json()["message"]


def test_rate_limit_answers_429_with_retry_after(room: Room, client: Client, settings):
    settings.LEXROOM_TOOL_RATE_PER_MINUTE = 3
    _, raw = token_create(user=room.viewer, name="rl")
    codes = [
        client.post(
            "/api/tools/list_workspaces",
            data="{}",
            content_type="application/json",
            headers=_bearer(raw),
        ).status_code
        for _ in range(4)
    ]
    assert codes == [200, 200, 200, 429]


def test_openapi_schema_and_docs_are_served(owner_client: Client):
    schema = owner_client.get("/api/schema/")
    assert schema.status_code == 200 and b"/api/tools" in schema.content
    assert owner_client.get("/api/docs/").status_code == 200
