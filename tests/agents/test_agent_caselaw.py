"""The agent on case law: the case-law tools offered in a workspace's chat without a
workspace argument, each decision numbered once and cited like a contract (court, date,
number, a link to its page), quotes checked against the decision's text. Against the local
fake sites (tests/sources/fake_caselaw.py) and the fake Ollama."""

from __future__ import annotations

import json

import pytest

from agents.chat._tools import agent_tools, needs_approval, tool_schemas
from agents.models import TurnStatus
from tests.helpers.agent import STOP, ask, call, final, steps, tool_messages, tools

pytestmark = pytest.mark.django_db
FIRST = "/Ariane_Web/AW_DCE/|480001"  # the newest class A decision of the fake corpus
QUOTE = "Il résulte de ce qui précède que la requête doit être rejetée"


def test_the_case_law_tools_are_offered_without_a_workspace_argument():
    names = {tool.name for tool in agent_tools()}
    assert {"search_case_law", "get_decision", "get_conclusions", "get_analysis"} <= names
    by_name = {s["function"]["name"]: s for s in tool_schemas()}
    assert "workspace" not in by_name["get_decision"]["function"]["parameters"]["properties"]
    assert "save_decision" in names  # a write: it waits for the user's approval


def test_saving_a_decision_waits_for_approval(room):
    from agents.chat._tools import Caller

    caller = Caller(room.owner, room.workspace, None, "Enregistre la décision")
    assert needs_approval(caller, "save_decision") and not needs_approval(caller, "get_decision")


def test_an_answer_on_case_law_cites_the_decision_and_checks_its_quote(room, ollama, fake_caselaw):
    fake = ollama(
        tools(call("search_case_law", query="éolienne", limit=5)),
        tools(call("get_decision", id=FIRST)),
        STOP,
        final(
            answer=f"Le Conseil d'État a jugé : « {QUOTE} » [1]. « Le vent est gratuit » [1].",
            citations=[1],
        ),
    )
    turn = ask(room, "Qu'a jugé le Conseil d'État sur les éoliennes ?")
    assert turn.status == TurnStatus.DONE, turn.error
    [search] = [s for s in steps(turn) if s.name == "search_case_law"]
    assert "workspace" not in search.arguments["run"]
    # What the model read of the search: decisions numbered, the first one being [1].
    payload = tool_messages(fake.chats()[1])[0].split("\n", 1)[1].rsplit("\n", 1)[0]
    read = json.loads(payload)
    assert read["decisions"][0]["n"] == 1 and read["decisions"][0]["id"] == FIRST
    decision_read = json.loads(
        tool_messages(fake.chats()[2])[-1].split("\n", 1)[1].rsplit("\n", 1)[0]
    )
    assert decision_read["decision"]["n"] == 1  # the same decision keeps its number
    assert [p["n"] for p in decision_read["decision"]["points"]] == [1, 2, 3]
    answer = turn.answer
    [citation] = answer["citations"]
    assert citation["kind"] == "decision" and citation["decision_id"] == FIRST
    assert citation["url"] == "/jurisprudence/decision/?id=%2FAriane_Web%2FAW_DCE%2F%7C480001"
    assert citation["label"].startswith("Conseil d'État, Section, 2024-12-20, n° 480001")
    assert answer["checks"]["quotes"]["verified"] == [QUOTE]
    assert answer["checks"]["quotes"]["removed"] == ["Le vent est gratuit"]
