"""The OpenAPI fuzz (``manage.py fuzz --openapi N``): schemathesis against a live server, every
operation of ``/api/schema/`` as every credential kind of the permission matrix. A short run
in the default suite, a long one marked slow. The collecting logic is shown able to fail: a
5xx, an undocumented status, a wrong content type, a body outside its schema, a dead
credential or a stranger let in, and a broken endpoint on the live server."""

from __future__ import annotations

import io
import json
import re
import secrets

import pytest
import requests
import schemathesis
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from lab.agents.fuzz import fuzz_openapi, live_world
from lab.agents.fuzz._openapi import Credential, OpenApiFuzzReport, collect
from lab.management.commands.fuzz import OFFLINE
from tests.helpers.permissions import CREDENTIALS, url_patterns

# Served beside the API but not in its own schema (drf-spectacular leaves them out).
NOT_IN_SCHEMA = {"/api/schema/", "/api/docs/"}


def _fuzz(openapi: int) -> dict:
    out = io.StringIO()
    try:
        call_command("fuzz", "--calls", "0", "--uploads", "0", "--openapi", str(openapi),
                     "--json", stdout=out, stderr=io.StringIO())  # fmt: skip
    except CommandError:
        pytest.fail(f"fuzz failed:\n{out.getvalue()[-6000:]}")
    return json.loads(out.getvalue())


def _api_routes() -> set[str]:
    """The URLconf's /api/ routes as OpenAPI writes them (``<slug:slug>`` → ``{slug}``)."""
    routes = {"/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route) for route, _ in url_patterns()}
    return {route for route in routes if route.startswith("/api/")} - NOT_IN_SCHEMA


@pytest.mark.django_db(transaction=True)
def test_a_short_openapi_fuzz_covers_every_operation_as_every_credential_and_finds_nothing():
    report = _fuzz(2)  # two cases per operation and credential: every status path seen
    assert report["ok"] and {"tools", "uploads", "openapi"} <= set(report)
    openapi = report["openapi"]
    assert openapi["failures_total"] == 0, openapi["failures"]
    assert {label.split(" ", 1)[1] for label in openapi["operations"]} == _api_routes()
    assert openapi["credentials"] == list(CREDENTIALS)
    statuses = openapi["statuses_by_credential"]
    assert set(statuses) == set(CREDENTIALS)
    for dead in ("anonymous", "token_expired", "token_revoked"):
        assert set(statuses[dead]) <= {"401", "404"}, (dead, statuses[dead])
    for member in ("owner", "editor", "viewer", "firm_admin", "token_rw", "token_ro"):
        assert any(code.startswith("2") for code in statuses[member]), (member, statuses[member])
    assert "403" in statuses["token_ro"]  # it may not upload
    # The stranger rule had requests to apply to: the room named in paths and tool bodies.
    assert openapi["requests_naming_the_room"] > 0


def test_the_openapi_fuzz_is_skipped_with_zero():
    from lab.management.commands.fuzz import Command

    assert Command()._openapi(0) == {"skipped": "--openapi 0"}


@pytest.mark.django_db(transaction=True)
def test_the_openapi_fuzz_reports_a_broken_endpoint_on_the_live_server(monkeypatch):
    from workspaces import api

    def crash(**kwargs):
        raise ZeroDivisionError

    # The views stay (the schema is made from them): the list's items leave their schema, a
    # room's detail crashes (a 500).
    monkeypatch.setattr(api.WorkspaceSerializer, "to_representation", lambda self, w: {"x": 1})
    monkeypatch.setattr(api, "workspace_get_for_member", crash)
    with override_settings(**OFFLINE), live_world(secrets.token_hex(3)) as world:
        owner = [c for c in world.credentials if c.kind in ("owner", "token_ro")]
        report = fuzz_openapi(base_url=world.base_url, credentials=owner, examples=1,
                              pins=world.pins)  # fmt: skip
    found = {(f["operation"], f["check"], f["status"]) for f in report.failures.values()}
    assert ("GET /api/workspaces/", "response_schema_conformance", "200") in found
    assert ("GET /api/workspaces/{slug}/", "not_a_server_error", "500") in found
    assert report.as_dict()["failures_total"] >= 4  # both checks, both credentials


# --- The collecting logic, on answers made up here ------------------------------------------

SPEC = {
    "openapi": "3.0.3",
    "info": {"title": "t", "version": "1"},
    "paths": {
        "/api/things/{slug}/": {
            "get": {
                "parameters": [{"in": "path", "name": "slug", "required": True,
                                "schema": {"type": "string"}}],
                "responses": {
                    "200": {"description": "", "content": {"application/json": {"schema": {
                        "type": "object", "required": ["slug"],
                        "properties": {"slug": {"type": "string"}}}}}},
                    "404": {"description": "", "content": {"application/json": {}}},
                },
            }
        },
        "/api/tools/{name}": {
            "post": {
                "parameters": [{"in": "path", "name": "name", "required": True,
                                "schema": {"type": "string"}}],
                "responses": {"200": {"description": "", "content": {"application/json": {}}},
                              "503": {"description": "", "content": {"application/json": {}}}},
            }
        },
    },
}  # fmt: skip


def _answer(status: int, body: object, content_type: str = "application/json"):
    request = requests.Request("GET", "http://127.0.0.1:1/api/things/a/").prepare()
    content = json.dumps(body).encode() if content_type == "application/json" else b"<p>x</p>"
    return schemathesis.Response(status, {"content-type": [content_type]}, content, request,
                                 0.01, True)  # fmt: skip


def _collect(
    kind: str,
    status: int,
    body: object,
    content_type: str = "application/json",
    *,
    path: str = "/api/things/{slug}/",
    pinned: bool = True,
) -> OpenApiFuzzReport:
    schema = schemathesis.openapi.from_dict(SPEC)
    method = "POST" if path.startswith("/api/tools/") else "GET"
    case = schema[path][method].Case(path_parameters={"slug": "a", "name": "search_case_law"})
    report = OpenApiFuzzReport()
    collect(report, case, _answer(status, body, content_type), Credential(kind), pinned=pinned)
    return report


def _checks(report: OpenApiFuzzReport) -> set[str]:
    return {check for _operation, _credential, check, _status in report.failures}


@pytest.mark.parametrize(
    ("kind", "status", "body", "content_type", "failed"),
    [
        ("owner", 200, {"slug": "a"}, "application/json", set()),
        ("owner", 200, {"slug": 1}, "application/json", {"response_schema_conformance"}),
        ("owner", 200, {"slug": "a"}, "text/html", {"content_type_conformance"}),
        ("owner", 418, {}, "application/json", {"status_code_conformance"}),
        ("owner", 500, {}, "application/json",
         {"not_a_server_error", "status_code_conformance"}),
        ("anonymous", 200, {"slug": "a"}, "application/json", {"dead_credential_refused"}),
        ("token_revoked", 200, {"slug": "a"}, "application/json", {"dead_credential_refused"}),
        ("foreigner", 200, {"slug": "a"}, "application/json", {"stranger_refused"}),
        ("outsider", 404, {}, "application/json", set()),
    ],
)  # fmt: skip
def test_collect_records_each_failed_check(kind, status, body, content_type, failed):
    report = _collect(kind, status, body, content_type)
    assert _checks(report) == failed
    assert report.requests == 1 and report.statuses[kind] == {str(status): 1}


def test_a_stranger_answered_elsewhere_than_the_room_is_no_failure():
    # Not pinned: the path names some other slug (theirs, perhaps), not the fuzz room.
    assert _checks(_collect("foreigner", 200, {"slug": "a"}, pinned=False)) == set()


def test_a_tool_whose_site_is_down_is_counted_apart_not_failed():
    report = _collect("owner", 503, {"error": "unavailable", "message": "down"},
                      path="/api/tools/{name}")  # fmt: skip
    assert report.dependency_offline == 1 and _checks(report) == set()
    broken = _collect("owner", 503, {"error": "boom"}, path="/api/tools/{name}")
    assert _checks(broken) == {"not_a_server_error"}


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_full_openapi_fuzz():
    openapi = _fuzz(100)["openapi"]
    assert openapi["failures_total"] == 0 and openapi["requests"] >= 3_000


def test_a_tool_call_naming_the_room_in_its_body_is_checked_for_strangers():
    from lab.agents.fuzz._openapi import names_room

    schema = schemathesis.openapi.from_dict(SPEC)
    tool = schema["/api/tools/{name}"]["POST"]
    assert names_room(
        tool.Case(
            path_parameters={"name": "t"}, body={"workspace": "room"}, media_type="application/json"
        ),
        "room",
    )
    assert not names_room(
        tool.Case(path_parameters={"name": "t"}, body={"x": 1}, media_type="application/json"),
        "room",
    )
    thing = schema["/api/things/{slug}/"]["GET"]
    assert names_room(thing.Case(path_parameters={"slug": "room"}), "room")
    assert not names_room(thing.Case(path_parameters={"slug": "b"}), "room")
