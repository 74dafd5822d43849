"""MCP over streamable HTTP (a live uvicorn) and stdio (the ``lexroom-mcp`` command), with
the official SDK client: tools, outsiders, tokens, transport guards and bad input."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import anyio
import httpx
import httpx2
import jsonschema
import pytest
import uvicorn
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test import override_settings
from django.utils import timezone
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from pydantic import BaseModel, ConfigDict

from agents.management.commands.serve import _refusal
from agents.tools.registry import REGISTRY, Tool, ToolContext, register
from compliance.models import Flag
from compliance.playbooks import default_playbooks, parse_playbook
from compliance.services import playbook_assign, playbook_import, scan_create
from documents.models import Document
from documents.services import workspace_purge_throwaway
from lab.agents.bench.mcp import server_timing
from sources.models import CaseLawHit, CaseLawResponse, LegalCode
from tests.factories import FirmFactory, MembershipFactory, UserFactory, WorkspaceFactory
from tests.helpers.contracts import ingest_files
from tests.sources.factories import import_demo
from workspaces.models import PersonalToken, Role, User, Workspace
from workspaces.tenancy import firm_scope, workspace_scope
from workspaces.tokens import token_create, token_revoke

# The module's rooms are committed by a module fixture; the mark makes pytest-django set up
# the test database even when only this module runs (otherwise the fixture would write into
# the development database).
pytestmark = pytest.mark.django_db

TOOLS = {
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
ACCEPT = "application/json, text/event-stream"
CONTRACTS_A = {
    "bail-lyon.txt": "BAIL COMMERCIAL\nEntre Société Alpha Immobilier SAS et Boulangerie Dupont "
    "SARL.\nARTICLE 1 - OBJET\nLe bailleur donne à bail les locaux situés à Lyon.\n"
    "ARTICLE 2 - DURÉE\nLe bail est conclu pour neuf années.\nARTICLE 3 - LOYER\n"
    "Le loyer annuel est de 24 000 euros.\nARTICLE 4 - DROIT APPLICABLE\nDroit français.\n",
    "nda-alpha.txt": "ACCORD DE CONFIDENTIALITÉ\nEntre Société Alpha Immobilier SAS et Beta "
    "Conseil SA.\nARTICLE 1 - CONFIDENTIALITÉ\nLes parties gardent secrètes les informations "
    "échangées.\nARTICLE 2 - DURÉE\nTrois ans.\n",
}
CONTRACTS_B = {
    "b1.txt": "CONTRAT DE PRESTATION\nEntre Gamma SA et Delta SARL.\nARTICLE 1 - OBJET\n"
    "Prestations de maintenance informatique.\n",
    "b2.txt": "CONTRAT DE LICENCE\nEntre Gamma SA et Epsilon SAS.\nARTICLE 1 - LICENCE\n"
    "Licence non exclusive du logiciel.\n",
    "b3.txt": "CONTRAT DE VENTE\nEntre Gamma SA et Zeta SARL.\nARTICLE 1 - OBJET\n"
    "Vente de matériel de bureau.\n",
}


@dataclass
class World:
    url: str
    user_a: User
    user_b: User
    workspace_a: Workspace
    workspace_b: Workspace
    token_a: str
    token_b: str
    readonly_a: str
    flag_a: int  # an open flag of workspace_a (the French due-diligence playbook assigned)


def _flag(workspace: Workspace, user: User) -> int:
    spec = parse_playbook(default_playbooks()[1].read_text(encoding="utf-8"))
    with firm_scope(workspace.firm_id):
        playbook, _ = playbook_import(firm=workspace.firm, spec=spec)
    with workspace_scope(workspace):
        playbook_assign(workspace=workspace, key=playbook.key)
        scan = scan_create(workspace=workspace, playbook=playbook, user=user)
        document = Document.objects.filter(workspace=workspace).order_by("ref").first()
        assert document is not None
        flag = Flag.objects.create(
            workspace=workspace,
            scan=scan,
            rule=playbook.rules.first(),
            document=document,
            reason="t",
            severity="high",
        )
    return flag.pk


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _remove(workspace: Workspace) -> None:
    workspace_purge_throwaway(workspace=workspace)


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker) -> Iterator[World]:
    """Two firms' rooms committed to the test database, and uvicorn serving config.asgi in a
    thread: the server's threads open their own connections, so the data must be committed
    (not inside a test transaction). Everything is removed at the end of the module."""
    from config.asgi import application

    with django_db_blocker.unblock():
        firm_a, firm_b = FirmFactory(name="Cabinet MCP A"), FirmFactory(name="Cabinet MCP B")
        user_a = UserFactory(firm=firm_a, email="a@mcp.test")
        user_b = UserFactory(firm=firm_b, email="b@mcp.test")
        workspace_a = WorkspaceFactory(firm=firm_a, slug="mcp-alpha", title="MCP Alpha")
        workspace_b = WorkspaceFactory(firm=firm_b, slug="mcp-beta", title="MCP Beta")
        MembershipFactory(workspace=workspace_a, user=user_a, role=Role.OWNER)
        MembershipFactory(workspace=workspace_b, user=user_b, role=Role.OWNER)
        ingest_files(workspace_a, CONTRACTS_A, user=user_a)
        ingest_files(workspace_b, CONTRACTS_B, user=user_b)
        flag_a = _flag(workspace_a, user_a)
        _, token_a = token_create(user=user_a, name="test a")
        _, token_b = token_create(user=user_b, name="test b")
        _, readonly_a = token_create(user=user_a, name="test ro", read_only=True)

        port = _free_port()
        server = uvicorn.Server(
            uvicorn.Config(
                application, host="127.0.0.1", port=port, lifespan="on", log_level="warning"
            )
        )
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        try:
            # Rate limit out of the way except where a test sets it; tests run with DEBUG=0,
            # so the loopback names must be allowed explicitly, as in production.
            with override_settings(
                LEXROOM_TOOL_RATE_PER_MINUTE=0,
                LEXROOM_REQUESTS_PER_SECOND=0,
                ALLOWED_HOSTS=["127.0.0.1", "localhost"],
            ):
                import_demo()  # an invented code (committed: the server reads it)
                yield World(
                    f"http://127.0.0.1:{port}/mcp",
                    user_a,
                    user_b,
                    workspace_a,
                    workspace_b,
                    token_a,
                    token_b,
                    readonly_a,
                    flag_a,
                )
        finally:
            server.should_exit = True
            thread.join(timeout=10)
            _remove(workspace_a)
            _remove(workspace_b)
            LegalCode.objects.filter(slug="code-des-essais").delete()


def _session(url: str, token: str, mode: str = "auto") -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    return Client(streamable_http_client(url, http_client=http), mode=mode)


def _payload(result: Any) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(result.content[0].text)
    return body


def _calls(
    url: str, token: str, calls: list[tuple[str, dict[str, Any]]], mode: str = "auto"
) -> list[Any]:
    async def run() -> list[Any]:
        async with _session(url, token, mode) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]

    return anyio.run(run)


def _post(world: World, body: Any, *, token: str | None = None, **headers: str) -> httpx.Response:
    sent = {"content-type": "application/json", "accept": ACCEPT}
    if token is not None:
        sent["authorization"] = f"Bearer {token}"
    sent.update({k.replace("_", "-"): v for k, v in headers.items()})
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.post(world.url, content=content, headers=sent, timeout=30)


def _rpc(name: str, arguments: Any, call_id: int = 1) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": call_id, "method": "tools/call", "params": params}


def _clean_error(response: httpx.Response, status: int) -> None:
    assert response.status_code == status, response.text
    assert "Traceback" not in response.text
    assert response.headers["content-type"].startswith("application/json")


# --- The SDK client over HTTP -------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_sdk_client_lists_the_flat_tools_and_searches(world, mode):
    async def run() -> tuple[Any, Any]:
        async with _session(world.url, world.token_a, mode) as client:
            tools = await client.list_tools()
            found = await client.call_tool(
                "search_data_room",
                {"workspace": "mcp-alpha", "filters": {"contract_types": []}},
            )
            return tools, found

    tools, found = anyio.run(run)
    assert {tool.name for tool in tools.tools} == TOOLS
    for tool in tools.tools:
        schema = json.dumps(tool.input_schema)
        assert "$ref" not in schema and "anyOf" not in schema
    assert not found.is_error
    ids = {record["contract_id"] for record in found.structured_content["results"]}
    assert ids == {"c01", "c02"}
    assert _payload(found) == found.structured_content


def test_query_search_returns_the_relevant_article(world):
    [result] = _calls(
        world.url, world.token_a, [("search_data_room", {"query": "loyer annuel", "limit": 5})]
    )
    assert not result.is_error
    first = result.structured_content["results"][0]
    assert first["contract_id"] == "c01"


def test_tools_list_publishes_output_schemas_and_calls_return_structured_content(
    world, fake_caselaw
):
    calls: list[tuple[str, dict[str, Any]]] = [
        ("list_workspaces", {}),
        ("describe_data_room", {}),
        ("search_data_room", {"query": "loyer annuel", "limit": 5}),
        ("get_contract", {"contract_id": "c01"}),
        ("find_duplicates", {}),
        (
            "rate_result",
            {"query": "loyer annuel", "chunk_id": _first_article(world), "relevant": True},
        ),
        # No Ollama answers in this test: the agent's turn fails, and says so (not a tool error).
        ("ask", {"question": "Quel est le loyer ?"}),
        ("scan_contract", {"contract_id": "c01"}),
        ("list_flags", {}),
        ("update_flag", {"flag_id": world.flag_a, "status": "escalated", "note": "Associé"}),
        ("search_legal_codes", {"query": "délai de préavis", "as_of": "2017-01-01"}),
        ("get_article", {"code": "Code des essais", "number": "art. L. 101-2"}),
        ("follow_renvois", {"code": "code-des-essais", "number": "L101-2", "depth": 2}),
        ("search_case_law", {"query": "éolienne", "limit": 3}),
        ("get_decision", {"id": "/Ariane_Web/AW_DCE/|480003"}),
        ("get_conclusions", {"id": "/Ariane_Web/AW_DCE/|480003"}),
        ("get_analysis", {"id": "/Ariane_Web/AW_DCE/|480003"}),
        ("save_decision", {"id": "/Ariane_Web/AW_DCE/|480003"}),
    ]

    async def run() -> tuple[Any, list[Any]]:
        async with _session(world.url, world.token_a) as client:
            tools = await client.list_tools()
            # The SDK client itself checks each structuredContent against the outputSchema.
            return tools, [await client.call_tool(name, arguments) for name, arguments in calls]

    tools, results = anyio.run(run)
    schemas = {tool.name: tool.output_schema for tool in tools.tools}
    assert set(schemas) == TOOLS
    for name, schema in schemas.items():
        assert schema is not None and schema["type"] == "object", name
        assert "$ref" not in json.dumps(schema) and "anyOf" not in json.dumps(schema)
    assert {name for name, _ in calls} == TOOLS
    for (name, _), result in zip(calls, results, strict=True):
        assert not result.is_error, name
        assert result.structured_content == _payload(result)  # text content kept for old clients
        jsonschema.validate(result.structured_content, schemas[name])
    _committed(_forget_saved_decisions, world.workspace_a)


def _forget_saved_decisions(workspace: Workspace) -> None:
    """The decision saved, and what the case-law tools kept (public, committed)."""
    with workspace_scope(workspace):
        Document.objects.filter(source="case_law").delete()
    CaseLawHit.objects.all().delete()
    CaseLawResponse.objects.all().delete()


def _committed(function: Any, *args: Any) -> None:
    """Run ``function`` on a connection of its own, outside the test's transaction: the
    server's writes are committed, so must be their undoing (the module shares its rooms)."""

    def run() -> None:
        try:
            function(*args)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=30)


# --- stdio --------------------------------------------------------------------------------


def test_stdio_command_lists_tools_and_calls_one_as_the_tokens_user(world):
    command = shutil.which("lexroom-mcp")
    args: list[str] = []
    if command is None:  # not installed as a script: the module is the same entry point
        command, args = sys.executable, ["-m", "agents.mcp.stdio"]
    env = {
        "LEXROOM_TOKEN": world.token_a,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        # The test database, on the same embedded server.
        "LEXROOM_DB_NAME": connection.settings_dict["NAME"],
        "LEXROOM_DATA_DIR": str(settings.LEXROOM_DATA_DIR),
        "SECRET_KEY": "stdio-test",
        "DEBUG": "0",
        "HF_HUB_OFFLINE": "1",
        "LEXROOM_EMBEDDING_MODEL": settings.LEXROOM_EMBEDDING_MODEL,
        "LEXROOM_EMBEDDING_DEVICE": "cpu",
        "LEXROOM_TOOL_RATE_PER_MINUTE": "0",
    }
    for name in ("DATABASE_URL", "PATH", "HOME"):
        if name in os.environ:
            env[name] = os.environ[name]
    params = StdioServerParameters(command=command, args=args, env=env, cwd=settings.BASE_DIR)

    async def run() -> tuple[Any, Any, Any]:
        async with Client(params) as client:
            tools = await client.list_tools()
            listed = await client.call_tool("list_workspaces", {})
            outsider = await client.call_tool("describe_data_room", {"workspace": "mcp-beta"})
            return tools, listed, outsider

    tools, listed, outsider = anyio.run(run)
    assert {tool.name for tool in tools.tools} == TOOLS
    assert [w["workspace"] for w in listed.structured_content["workspaces"]] == ["mcp-alpha"]
    assert outsider.is_error and _payload(outsider)["error"] == "not_found"


def test_stdio_command_without_token_exits_2_with_a_message():
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "LEXROOM_TOKEN"}
    done = subprocess.run(
        [sys.executable, "-m", "agents.mcp.stdio"],
        env=env,
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "LEXROOM_TOKEN" in done.stderr and done.stdout == ""


# --- Outsiders and tokens -----------------------------------------------------------------


def _same_refusal(foreign: dict[str, Any], missing: dict[str, Any], slugs: tuple[str, str]) -> None:
    assert foreign["error"] == missing["error"] == "not_found"
    assert foreign["details"] == missing["details"]
    assert foreign["message"].replace(slugs[0], "X") == missing["message"].replace(slugs[1], "X")


def test_outsider_cannot_reach_another_firms_room_and_learns_nothing(world):
    results = _calls(
        world.url,
        world.token_a,
        [
            ("search_data_room", {"workspace": "mcp-beta"}),
            ("search_data_room", {"workspace": "no-such-room"}),
            ("describe_data_room", {"workspace": "mcp-beta"}),
            ("describe_data_room", {"workspace": "no-such-room"}),
            ("get_contract", {"workspace": "mcp-beta", "contract_id": "c03"}),
            ("get_contract", {"workspace": "no-such-room", "contract_id": "c03"}),
            # B has a c03, A does not: guessing it in A's own room finds nothing.
            ("get_contract", {"workspace": "mcp-alpha", "contract_id": "c03"}),
            ("list_workspaces", {}),
        ],
    )
    payloads = [_payload(r) for r in results]
    assert all(r.is_error for r in results[:7])
    slugs = ("mcp-beta", "no-such-room")
    for foreign, missing in ((0, 1), (2, 3), (4, 5)):
        _same_refusal(payloads[foreign], payloads[missing], slugs)
    assert payloads[0]["details"]["allowed"] == ["mcp-alpha"]
    # The search layer answers an unknown id in the caller's own room as a correctable
    # argument error: it names the field, never what exists elsewhere.
    assert payloads[6]["error"] == "invalid_arguments"
    assert payloads[6]["details"] == {"field": "contract_id"}
    assert "Gamma" not in json.dumps(payloads)
    assert [w["workspace"] for w in payloads[7]["workspaces"]] == ["mcp-alpha"]


def test_concurrent_callers_each_see_only_their_own_rooms(world):
    async def one(token: str) -> list[str]:
        async with _session(world.url, token) as client:
            seen = []
            for _ in range(10):
                result = await client.call_tool("list_workspaces", {})
                seen += [w["workspace"] for w in result.structured_content["workspaces"]]
            return seen

    async def run() -> dict[str, list[str]]:
        seen: dict[str, list[str]] = {}

        async def collect(key: str, token: str) -> None:
            seen[key] = await one(token)

        async with anyio.create_task_group() as group:
            for n in range(3):
                group.start_soon(collect, f"a{n}", world.token_a)
                group.start_soon(collect, f"b{n}", world.token_b)
        return seen

    for key, slugs in anyio.run(run).items():
        assert set(slugs) == ({"mcp-alpha"} if key.startswith("a") else {"mcp-beta"})


def test_revoked_and_expired_tokens_and_no_token_get_401(world):
    # Committed like the module's data; the module's teardown removes the user's tokens.
    _, revoked = token_create(user=world.user_a, name="revoked")
    _, expired = token_create(user=world.user_a, name="expired", expires_days=1)
    token_revoke(token=PersonalToken.objects.get(prefix=revoked[:12]), actor=world.user_a)
    PersonalToken.objects.filter(prefix=expired[:12]).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for token in (revoked, expired, "lxr_not-a-token", None):
        response = _post(world, body, token=token)
        _clean_error(response, 401)
        assert response.headers["www-authenticate"] == 'Bearer realm="lexroom"'
    assert _post(world, body, token=world.token_a).status_code == 200


def test_a_signed_in_session_cookie_is_not_an_mcp_credential(world):
    # /mcp takes tokens only: a browser's session (say, a page that tricks it into posting
    # to the local server) authenticates nothing there.
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session["_auth_user_id"] = str(world.user_a.pk)
    session["_auth_user_backend"] = "workspaces.auth.UserWithFirmBackend"
    session["_auth_user_hash"] = world.user_a.get_session_auth_hash()
    session.create()
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    response = _post(world, body, cookie=f"{settings.SESSION_COOKIE_NAME}={session.session_key}")
    _clean_error(response, 401)
    session.delete()


def test_get_and_delete_on_mcp_answer_405_instead_of_hanging(world):
    headers = {"authorization": f"Bearer {world.token_a}", "accept": ACCEPT}
    for method in ("GET", "DELETE"):
        response = httpx.request(method, world.url, headers=headers, timeout=10)
        _clean_error(response, 405)
        assert response.headers["allow"] == "POST"


def test_server_timing_splits_our_time_from_the_tools_only_when_asked(world, settings):
    call = _rpc("describe_data_room", {"workspace": "mcp-alpha"})
    assert "server-timing" not in _post(world, call, token=world.token_a).headers
    settings.LEXROOM_SERVER_TIMING = True
    response = _post(world, call, token=world.token_a)
    assert response.status_code == 200 and not response.json()["result"]["isError"]
    durations = server_timing(response.headers["server-timing"])
    assert set(durations) == {"app", "tool"}
    assert 0 < durations["tool"] < durations["app"]


def test_django_request_bodies_over_the_cap_get_413_before_any_view(world, settings):
    settings.LEXROOM_MAX_REQUEST_BYTES = 1000
    base = world.url.removesuffix("/mcp")
    response = httpx.post(f"{base}/login/", content=b"x" * 5000, timeout=10)
    assert response.status_code == 413
    # Under the cap, the request reaches Django (here: CSRF refuses the anonymous POST).
    assert httpx.post(f"{base}/login/", content=b"x" * 10, timeout=10).status_code == 403


def _first_article(world: World) -> int:
    [found] = _calls(world.url, world.token_a, [("search_data_room", {"query": "loyer annuel"})])
    return int(found.structured_content["results"][0]["relevant_articles"][0]["chunk_id"])


def test_rate_result_is_refused_to_a_read_only_token_and_to_another_firm(world):
    arguments = {"query": "loyer annuel", "chunk_id": _first_article(world), "relevant": False}
    [refused] = _calls(world.url, world.readonly_a, [("rate_result", arguments)])
    assert refused.is_error and _payload(refused)["error"] == "forbidden"
    [foreign] = _calls(world.url, world.token_b, [("rate_result", arguments)])
    assert foreign.is_error and _payload(foreign)["error"] == "not_found"
    [rated] = _calls(world.url, world.token_a, [("rate_result", arguments)])
    assert not rated.is_error and rated.structured_content["relevant"] is False


def test_read_only_token_cannot_call_a_write_tool(world):
    class WriteInput(BaseModel):
        model_config = ConfigDict(extra="forbid")
        workspace: str | None = None

    def handler(context: ToolContext, arguments: WriteInput) -> dict[str, Any]:
        return {"written": True}

    register(
        Tool(
            name="test_write_note",
            description="Throwaway write tool.",
            input_model=WriteInput,
            handler=handler,
            read_only=False,
            min_role=Role.EDITOR,
        )
    )
    try:
        [refused] = _calls(world.url, world.readonly_a, [("test_write_note", {})])
        [allowed] = _calls(world.url, world.token_a, [("test_write_note", {})])
    finally:
        del REGISTRY["test_write_note"]
    assert refused.is_error and _payload(refused)["error"] == "forbidden"
    assert not allowed.is_error and allowed.structured_content == {"written": True}


def test_foreign_host_gets_421_and_foreign_origin_403(world):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    _clean_error(_post(world, body, token=world.token_a, host="evil.example"), 421)
    _clean_error(_post(world, body, token=world.token_a, origin="http://evil.example"), 403)
    _clean_error(_post(world, body, token=world.token_a, origin="null"), 403)
    same_origin = world.url.removesuffix("/mcp")
    assert _post(world, body, token=world.token_a, origin=same_origin).status_code == 200


# --- Bad input ----------------------------------------------------------------------------


def test_malformed_json_rpc_gets_json_rpc_errors_not_500(world):
    parse = _post(world, b'{"jsonrpc": "2.0", "id": 1, "method"', token=world.token_a)
    _clean_error(parse, 400)
    assert parse.json()["error"]["code"] == -32700
    for body in ([1, 2], "hello", {"jsonrpc": "2.0", "id": 1}, {"id": 1, "method": 3}):
        response = _post(world, body, token=world.token_a)
        assert 400 <= response.status_code < 500, response.text
        assert "Traceback" not in response.text
    unknown = _post(world, {"jsonrpc": "2.0", "id": 7, "method": "no/such"}, token=world.token_a)
    assert unknown.json()["error"]["code"] == -32601
    wrong_params = _post(
        world,
        {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": 3}},
        token=world.token_a,
    )
    assert wrong_params.status_code < 500 and "error" in wrong_params.json()


def test_unknown_tool_and_wrong_types_come_back_as_tool_errors_with_allowed_values(world):
    unknown, wrong, extra = _calls(
        world.url,
        world.token_a,
        [
            ("no_such_tool", {}),
            ("search_data_room", {"limit": "many", "filters": {"entity_ids": "x"}}),
            ("list_workspaces", {"surprise": 1}),
        ],
    )
    assert unknown.is_error and _payload(unknown)["details"]["allowed"] == sorted(TOOLS)
    assert wrong.is_error and _payload(wrong)["error"] == "invalid_arguments"
    fields = {e["field"] for e in _payload(wrong)["details"]["errors"]}
    assert "limit" in fields
    assert extra.is_error and _payload(extra)["error"] == "invalid_arguments"
    raw = _post(world, _rpc("search_data_room", "not an object"), token=world.token_a)
    assert raw.status_code < 500 and "Traceback" not in raw.text
    # ArianeWebMCP's name reaches the tool it names: its own check refuses a malformed id.
    [alias] = _calls(world.url, world.token_a, [("get_decision_analysis", {"id": "nonsense"})])
    assert alias.is_error and _payload(alias)["error"] == "invalid_arguments"


def test_oversized_body_gets_413(world):
    padding = "x" * (1024 * 1024 + 10)
    big = _rpc("search_data_room", {"query": padding})
    _clean_error(_post(world, big, token=world.token_a), 413)
    with override_settings(LEXROOM_MCP_MAX_BODY_BYTES=2000):
        small_limit = _rpc("search_data_room", {"query": "y" * 3000})
        _clean_error(_post(world, small_limit, token=world.token_a), 413)

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted while reading
            data = json.dumps(small_limit).encode()
            for start in range(0, len(data), 500):
                yield data[start : start + 500]

        response = httpx.post(
            world.url,
            content=chunks(),
            headers={
                "content-type": "application/json",
                "accept": ACCEPT,
                "authorization": f"Bearer {world.token_a}",
            },
            timeout=30,
        )
        _clean_error(response, 413)


def test_two_hundred_rapid_calls_all_succeed(world):
    async def run() -> list[Any]:
        async with _session(world.url, world.token_a) as client:
            results = []
            for n in range(200):
                arguments: dict[str, Any] = {"filters": {"contract_types": []}, "limit": 1 + n % 3}
                results.append(await client.call_tool("search_data_room", arguments))
            return results

    with override_settings(LEXROOM_TOOL_RATE_PER_MINUTE=100_000):
        results = anyio.run(run)
    assert len(results) == 200
    assert not [r for r in results if r.is_error]


def test_rate_limit_is_a_tool_error_with_retry_after(world):
    with override_settings(LEXROOM_TOOL_RATE_PER_MINUTE=2):
        results = _calls(world.url, world.token_b, [("list_workspaces", {})] * 3)
    assert [r.is_error for r in results] == [False, False, True]
    assert _payload(results[2])["error"] == "rate_limited"
    assert _payload(results[2])["retry_after"] > 0


# --- serve --------------------------------------------------------------------------------


def test_serve_refuses_a_public_interface_without_explicit_production_settings(monkeypatch):
    everywhere = "0.0.0.0"  # noqa: S104 - the point of the test
    monkeypatch.delenv("ALLOWED_HOSTS", raising=False)
    monkeypatch.delenv("LEXROOM_BEHIND_TLS_PROXY", raising=False)
    with pytest.raises(CommandError, match="ALLOWED_HOSTS") as refused:
        call_command("serve", "--host", everywhere)
    assert "LEXROOM_BEHIND_TLS_PROXY=1" in str(refused.value)
    monkeypatch.setenv("ALLOWED_HOSTS", "lexroom.firm.example")
    assert "LEXROOM_BEHIND_TLS_PROXY" in (_refusal(everywhere) or "")
    monkeypatch.setenv("LEXROOM_BEHIND_TLS_PROXY", "1")
    assert _refusal(everywhere) is None
    assert _refusal("127.0.0.1") is None and _refusal("::1") is None
