"""Clients written for ArianeWebMCP keep working: its tool names and parameters are aliases
of search_case_law and get_analysis, run and answered as those, over every surface."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from agents.tools import ToolError, call_tool
from agents.tools.aliases import resolve_alias
from tests.helpers.rooms import Room

pytestmark = pytest.mark.django_db


def _tool(room: Room, name: str, **arguments: Any) -> dict[str, Any]:
    with translation.override("en"):
        return call_tool(name=name, arguments=arguments, user=room.viewer).content


def test_their_parameters_mean_ours():
    name, arguments = resolve_alias(
        "search_decisions",
        {"query": "éolienne", "classification": "AB", "date_start": "2023-01-01",
         "date_end": "2024-12-31", "page": 3, "page_size": 7, "jurisdiction": "CE"},
    )  # fmt: skip
    assert name == "search_case_law"
    assert arguments == {
        "query": "éolienne", "jurisdiction": "CE", "date_from": "2023-01-01",
        "date_to": "2024-12-31", "limit": 7, "offset": 14,
    }  # fmt: skip
    assert resolve_alias("get_decision_analysis", {"id": "x"}) == ("get_analysis", {"id": "x"})
    assert resolve_alias("search_case_law", {"page": 2}) == ("search_case_law", {"page": 2})
    with pytest.raises(ToolError) as refused:
        resolve_alias("search_decisions", {"query": "x", "page": 0})
    assert refused.value.kind == "invalid_arguments" and "page" in refused.value.message


def test_search_decisions_answers_as_search_case_law(room, fake_caselaw):
    ours = _tool(room, "search_case_law", query="éolienne", limit=5, offset=5)
    theirs = _tool(room, "search_decisions", query="éolienne", page=2, page_size=5)
    assert [hit["id"] for hit in theirs["results"]] == [hit["id"] for hit in ours["results"]]
    assert theirs["offset"] == 5 and theirs["limit"] == 5
    decision = ours["results"][0]["id"]
    assert _tool(room, "get_decision", id=decision)["decision"]["id"] == decision


def test_get_decision_analysis_answers_as_get_analysis_over_rest(room, fake_caselaw):
    with_conclusions = next(d for d in fake_caselaw.corpus if d.get("SourceCsv7"))
    client = Client()
    client.force_login(room.viewer)
    response = client.post(
        "/api/tools/get_decision_analysis",
        {"id": with_conclusions["Id"]},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    assert "Analyse de la décision" in response.json()["analysis"]["text"]
    # Not listed: a model sees each tool once.
    listed = {tool["name"] for tool in client.get("/api/tools").json()}
    assert "search_case_law" in listed and "search_decisions" not in listed
