"""The agent on the law: the French codes' tools offered in a workspace's chat, the search
read with the user's words, the best hits' renvois followed by the code (two hops) before the
draft, articles cited by index like contracts, quotes checked against the article's text.

An invented code (tests/sources/factories.py) and an invented "Code civil" stand for the law.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agents.chat._law import graph_view
from agents.chat._sources import SourceBook
from agents.chat._tools import agent_tools, tool_schemas
from agents.models import TurnStatus
from tests.helpers.agent import STOP, ask, call, final, steps, tool_messages, tools
from tests.sources.factories import import_code, import_demo, version

pytestmark = pytest.mark.django_db

QUESTION = "Quelles règles pour les baux ?"
QUOTE = "Les articles L101-1 à L101-3 s'appliquent aux baux"


@pytest.fixture
def codes(db) -> None:
    import_demo()
    import_code(
        version("1240", "Celui qui cause un dommage le répare (inventé).", None, None),
        slug="code-civil",
        title="Code civil",
    )


def _sources(body: dict[str, Any]) -> dict[str, str]:
    """The numbered sources list the draft request shows the model: "[n] label" lines."""
    prompt = body["messages"][-1]["content"]
    return {
        line.split("]", 1)[0].lstrip("["): line.split("] ", 1)[1]
        for line in prompt.splitlines()
        if line.startswith("[")
    }


def test_the_codes_tools_are_offered_without_a_workspace_argument():
    names = {tool.name for tool in agent_tools()}
    assert {"search_legal_codes", "get_article", "follow_renvois"} <= names
    for schema in tool_schemas():
        assert "workspace" not in schema["function"]["parameters"].get("properties", {})


def test_a_law_answer_reads_renvois_two_hops_and_cites_articles(brenalis_room, ollama, codes):
    search = call("search_legal_codes", query="ignored: the user's words are", as_of="2017-01-01")
    fake = ollama(
        tools(search),
        STOP,
        lambda body: final(
            answer=f"« {QUOTE} » [{_number(body, 'L101-2')}] ; la faute relève de l'article "
            f"1240 [{_number(body, '1240')}] (droit au 2017-01-01).",
            citations=[_number(body, "L101-2"), _number(body, "1240")],
        ),
    )
    turn = ask(brenalis_room, QUESTION)
    assert turn.status == TurnStatus.DONE, turn.error
    [run] = [s for s in steps(turn) if s.name == "search_legal_codes"]
    assert run.arguments["run"]["query"] == QUESTION and "workspace" not in run.arguments["run"]
    # The model read the search's best hit and, followed by the code, what it refers to.
    result = json.loads(tool_messages(fake.chats()[1])[0].split("\n", 1)[1].rsplit("\n", 1)[0])
    assert result["articles"][0]["number"] == "L101-2"
    [graph] = result["renvois_followed"][:1]
    reached = {(a["code"], a["number"]) for a in graph["referenced"]}
    assert {("Code civil", "1240"), ("Code des essais", "L101-3")} <= reached
    assert any(u["why"] == "text" for u in graph["unresolved"])  # the loi, named apart
    answer = turn.answer
    assert answer["confidence"] == "high"
    kinds = {c["kind"] for c in answer["citations"]}
    urls = sorted(c["url"] for c in answer["citations"])
    assert kinds == {"law"}
    assert urls == [
        "/codes/code-civil/1240/?as_of=2017-01-01",
        "/codes/code-des-essais/L101-2/?as_of=2017-01-01",
    ]
    assert "[Code des essais, art. L101-2 (2010-01-01 →)]" in answer["answer"]
    assert answer["checks"]["quotes"]["verified"] == [QUOTE]


def test_a_quote_the_article_does_not_hold_is_removed(brenalis_room, ollama, codes):
    ollama(
        tools(call("get_article", code="code-des-essais", number="L. 101-2", as_of="2017-01-01")),
        STOP,
        final(answer="« Le bail est toujours gratuit pour le locataire » [1].", citations=[1]),
    )
    turn = ask(brenalis_room, "Que dit l'article L101-2 ?")
    assert turn.status == TurnStatus.DONE, turn.error
    assert turn.answer["checks"]["quotes"]["removed"] == [
        "Le bail est toujours gratuit pour le locataire"
    ]


def _number(body: dict[str, Any], article: str) -> int:
    for n, label in _sources(body).items():
        if f"art. {article} " in label or label.endswith(f"art. {article}"):
            return int(n)
    raise AssertionError(f"{article} not in the sources: {_sources(body)}")


def test_what_is_numbered_is_what_the_model_reads():
    book = SourceBook()
    graph = {
        "as_of": "2020-01-01",
        "root": _item(0),
        "articles": [{**_item(n), "hops": 1 + n % 2} for n in range(1, 40)],
        "unresolved": [],
        "truncated": False,
    }
    view = graph_view(book, graph, articles=6, chars=50)
    assert len(view["referenced"]) == 6 and view["not_shown"] == 33
    assert len(book.sources) == 7  # the root and the six shown, nothing the model cannot see
    assert all(len(a["text"]) <= 50 for a in view["referenced"])
    unknown = graph_view(SourceBook(), {**graph, "root": {**_item(0), "text_known": False}})
    assert "not its text" in unknown["root"]["note"]


def _item(n: int) -> dict[str, Any]:
    return {"version_id": 1000 + n, "code": "c", "code_title": "Code", "number": f"L{n}",
            "path": [], "valid_from": None, "valid_to": None, "text": "x" * 400}  # fmt: skip
