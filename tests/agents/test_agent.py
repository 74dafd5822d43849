"""The chat agent on the Brenalis data room, driven by a scripted fake Ollama over a real
socket: steps, citations substituted by the code, retries and abstentions, tool errors fed
back, approval pauses, modes, quotes checked against the stored text, failures of Ollama."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.utils import timezone

from agents.chat import run_turn
from agents.models import Turn, TurnStatus
from agents.services import turn_ask, turn_decide
from search.models import RelevanceJudgment
from tests.helpers.agent import (
    QUESTION,
    STOP,
    ask,
    brenalis_id,
    call,
    expiring,
    final,
    steps,
    tool_messages,
    tools,
)
from workspaces.tenancy import workspace_scope

pytestmark = pytest.mark.django_db


def test_a_listing_answer_cites_by_index_and_the_code_substitutes_the_contract(
    brenalis_room, ollama
):
    fake = ollama(
        tools(call("describe_data_room")),
        tools(expiring(brenalis_room)),
        STOP,
        final(
            answer="Un seul contrat expire avant fin 2026 : c04 [1]. Indécis : c08, c17 "
            "(pas de date de fin). c09 a été prolongé par l'avenant c18.",
            citations=[1],
        ),
    )
    turn = ask(brenalis_room)
    assert turn.status == TurnStatus.DONE, turn.error
    answer = turn.answer
    assert answer["confidence"] == "high"
    [citation] = answer["citations"]
    assert citation["contract_id"] == "c04" and citation["kind"] == "contract"
    assert citation["url"] == f"/w/{brenalis_room.workspace.slug}/documents/c04/"
    assert "[c04 — Lettre de mission" in answer["answer"] and "[1]" not in answer["answer"]
    assert answer["checks"]["listing_completed_by_code"] == {}
    # Today's date (Europe/Paris) is given to the model; the search ran in the user's room.
    system = fake.chats()[0]["messages"][0]["content"]
    assert timezone.localdate().isoformat() in system
    [search] = [s for s in steps(turn) if s.name == "search_data_room"]
    assert search.arguments["run"]["workspace"] == brenalis_room.workspace.slug
    assert search.summary["count"] == 1 and search.summary["excluded"] == 3
    names = [event for event, _ in turn.events]  # type: ignore[attr-defined]
    assert names[0] == "plan" and names[-1] == "done"
    assert names.index("sources") < names.index("token") < names.index("done")
    assert "".join(d.get("text", "") for e, d in turn.events if e == "token").startswith(  # type: ignore[attr-defined]
        "Un seul contrat"
    )


def test_an_index_outside_the_list_is_retried_twice_then_the_code_abstains(brenalis_room, ollama):
    wrong = final(answer="Voir [7].", citations=[7])
    fake = ollama(tools(expiring(brenalis_room)), STOP, wrong, wrong, wrong)
    turn = ask(brenalis_room)
    assert turn.status == TurnStatus.DONE
    assert turn.answer["confidence"] == "abstain"
    assert turn.answer["missing"] and brenalis_room.owner.email in turn.answer["escalate_to"]
    assert turn.answer["citations"] == []
    checks = [s for s in steps(turn) if s.kind == "check" and s.name == "unknown_citation"]
    assert len(checks) == 3
    retry = fake.chats()[-1]["messages"][-1]["content"]
    assert "do not exist" in retry and "[7]" in retry


def test_a_corrected_index_is_kept(brenalis_room, ollama):
    ollama(
        tools(expiring(brenalis_room)),
        STOP,
        final(answer="c04 [4].", citations=[4]),
        final(answer="c04 [1] ; c08 et c17 indécis ; c09 prolongé.", citations=[1]),
    )
    turn = ask(brenalis_room)
    assert turn.answer["confidence"] == "high"
    assert [c["contract_id"] for c in turn.answer["citations"]] == ["c04"]


def test_no_supporting_source_is_an_abstention_saying_what_is_missing(brenalis_room, ollama):
    ollama(
        tools(expiring(brenalis_room, before="1990-01-01")),
        STOP,
        final(answer="Aucun contrat n'expire avant 1990.", citations=[]),
    )
    turn = ask(brenalis_room, "Quels contrats Brenalis expirent avant 1990 ?")
    answer = turn.answer
    assert answer["confidence"] == "abstain"
    assert "found none" in answer["missing"] or "aucun" in answer["missing"].lower()
    assert answer["escalate_to"]


def test_a_tool_error_goes_back_to_the_model_which_corrects_its_call(brenalis_room, ollama):
    bad = {"entity_ids": [brenalis_id(brenalis_room)], "end_date": {"before": "fin 2026"}}
    fake = ollama(
        tools(call("search_data_room", filters=bad)),
        tools(expiring(brenalis_room)),
        STOP,
        final(answer="c04 [1] ; c08, c17 indécis ; c09 prolongé par c18.", citations=[1]),
    )
    turn = ask(brenalis_room)
    assert turn.status == TurnStatus.DONE and turn.answer["confidence"] == "high"
    [error] = tool_messages(fake.chats()[1])
    assert "invalid_arguments" in error and "end_date" in error
    searches = [s for s in steps(turn) if s.name == "search_data_room"]
    assert [s.error for s in searches] == ["invalid_arguments", ""]


def test_the_search_query_is_the_users_words_not_the_models(brenalis_room, ollama):
    question = "Un changement de contrôle du Groupe Brenalis aurait-il des conséquences ?"
    ollama(
        tools(call("search_data_room", query="change of control clause")),
        STOP,
        final(answer="Oui [1].", citations=[1]),
    )
    turn = ask(brenalis_room, question)
    [search] = [s for s in steps(turn) if s.name == "search_data_room"]
    assert search.arguments["proposed"]["query"] == "change of control clause"
    assert search.arguments["run"]["query"] == question


def test_a_write_tool_waits_for_approval_then_resumes_from_that_call(brenalis_room, ollama):
    question = "Marque le premier résultat sur le changement de contrôle comme pertinent."

    def rate(body: dict[str, Any]) -> dict[str, Any]:
        found = json.loads(tool_messages(body)[-1].split("\n", 1)[1].rsplit("\n", 1)[0])
        chunk_id = found["contracts"][0]["articles"][0]["chunk_id"]
        return tools(
            call("rate_result", query="changement de contrôle", chunk_id=chunk_id, relevant=True)
        )

    fake = ollama(
        tools(call("search_data_room", query="changement de contrôle")),
        rate,
        STOP,
        final(answer="C'est fait [1].", citations=[1]),
    )
    turn = ask(brenalis_room, question)
    assert turn.status == TurnStatus.AWAITING_APPROVAL
    assert turn.state["pending"]["name"] == "rate_result"
    assert (
        "approval_needed",
        {"turn": turn.pk, "tool": "rate_result", "arguments": turn.state["pending"]["arguments"]},
    ) in turn.events  # type: ignore[attr-defined]
    with workspace_scope(brenalis_room.workspace):
        assert not RelevanceJudgment.objects.filter(user=brenalis_room.owner).exists()
    turn_decide(turn=turn, user=brenalis_room.owner, approve=True)
    run_turn(turn, user=brenalis_room.owner)
    assert turn.status == TurnStatus.DONE, turn.error
    with workspace_scope(brenalis_room.workspace):
        assert (
            RelevanceJudgment.objects.filter(user=brenalis_room.owner, relevant=True).count() == 1
        )
        RelevanceJudgment.objects.filter(user=brenalis_room.owner).delete()
    kinds = [(s.kind, s.name) for s in steps(turn)]
    assert ("approval", "rate_result") in kinds and ("tool", "rate_result") in kinds
    assert len(fake.chats()) == 4


def test_a_refused_call_is_not_run_and_the_model_is_told(brenalis_room, ollama):
    fake = ollama(
        tools(call("rate_result", query="x", chunk_id=1, relevant=True)),
        STOP,
        final(
            answer="Je n'ai rien modifié.",
            confidence="abstain",
            missing="rien",
            escalate_to="l'associé",
        ),
    )
    turn = ask(brenalis_room, "Note ce résultat.")
    turn_decide(turn=turn, user=brenalis_room.owner, approve=False)
    run_turn(turn, user=brenalis_room.owner)
    assert turn.status == TurnStatus.DONE
    assert "refused" in tool_messages(fake.chats()[1])[-1]
    assert not [s for s in steps(turn) if s.kind == "tool"]


def test_quotes_are_checked_against_the_stored_text(brenalis_room, ollama):
    ollama(
        tools(call("get_contract", contract_id="c04")),
        STOP,
        final(
            answer="La mission « s'acheve au plus tard le 30 novembre 2026 » [1] ; elle est "
            "« gratuite pour toujours et sans limite » [1]. c04.",
            citations=[1],
        ),
    )
    turn = ask(brenalis_room, "Quand finit la mission de c04 ?")
    quotes = turn.answer["checks"]["quotes"]
    assert quotes["normalised"] == ["s'acheve au plus tard le 30 novembre 2026"]
    assert quotes["removed"] == ["gratuite pour toujours et sans limite"]
    assert "gratuite" not in turn.answer["answer"]
    assert (
        "not found in the cited text" in turn.answer["answer"]
        or "introuvable" in turn.answer["answer"]
    )


def test_a_listing_that_leaves_contracts_out_is_completed_by_the_code(brenalis_room, ollama):
    ollama(tools(expiring(brenalis_room)), STOP, final(answer="c04 [1].", citations=[1]))
    turn = ask(brenalis_room)
    gaps = turn.answer["checks"]["listing_completed_by_code"]
    assert gaps == {"excluded_unknown": ["c08", "c17"], "excluded_by_amendment": ["c09"]}
    assert "c08" in turn.answer["answer"] and "c09" in turn.answer["answer"]


def test_retrieval_only_shows_the_sources_without_asking_for_a_draft(brenalis_room, ollama):
    fake = ollama(tools(expiring(brenalis_room)), STOP)
    turn = ask(brenalis_room, mode="retrieval_only")
    assert turn.status == TurnStatus.DONE and turn.answer["answer"] is None
    # The contract, and the article that states its end date (a filter-only search shows it).
    cited = [(c["contract_id"], c.get("heading")) for c in turn.answer["citations"]]
    assert cited == [("c04", None), ("c04", "ARTICLE 2 — DURÉE")]
    assert turn.answer["listing"]["excluded_unknown"].keys() == {"c08", "c17"}
    assert not [body for body in fake.chats() if body.get("format")]


def test_direct_mode_has_no_tools_and_is_labelled_unsourced(brenalis_room, ollama):
    fake = ollama(final(answer="Le bail commercial dure en principe neuf ans.", citations=[]))
    turn = ask(brenalis_room, "Quelle est la durée d'un bail commercial ?", mode="direct")
    assert turn.answer["unsourced"] is True and turn.answer["confidence"] == "medium"
    [body] = fake.chats()
    assert (
        not body.get("tools")
        and "no access to the firm's documents" in body["messages"][0]["content"]
    )


def _failed_for_want_of_a_model(turn) -> str:
    """The lawyer's message says what still works, never how to fix the server; the fix
    for IT is in the trace (and the log, and /llm/). Returns the trace's error."""
    assert turn.status == TurnStatus.FAILED
    assert "Sources" in turn.error and "ollama" not in turn.error.lower()
    assert turn.events[-1] == ("error", {"message": turn.error})  # type: ignore[attr-defined]
    [error] = [s for s in steps(turn) if s.kind == "error" and s.name == "model_unavailable"]
    return str(error.error)


def test_ollama_down_fails_the_turn_with_a_clear_message(brenalis_room, settings):
    settings.OLLAMA_URL = "http://127.0.0.1:9"  # discard port: nothing listens
    settings.LEXROOM_LLM_RETRIES = 0
    for_it = _failed_for_want_of_a_model(ask(brenalis_room))
    assert "127.0.0.1:9" in for_it and "OLLAMA_URL" in for_it


def test_a_model_without_tool_support_is_named(brenalis_room, ollama):
    ollama(capabilities=("completion",))
    for_it = _failed_for_want_of_a_model(ask(brenalis_room))
    assert "cannot call tools" in for_it or "outils" in for_it


def test_a_model_not_pulled_says_which_command_pulls_it(brenalis_room, ollama, settings):
    ollama()
    settings.LEXROOM_LLM_MODEL = "mistral-small:24b"
    assert "ollama pull mistral-small:24b" in _failed_for_want_of_a_model(ask(brenalis_room))


def test_sources_only_works_without_any_model(brenalis_room, settings):
    settings.OLLAMA_URL = "http://127.0.0.1:9"  # nothing listens
    settings.LEXROOM_LLM_RETRIES = 0
    turn = ask(brenalis_room, "exclusivité territoriale", mode="retrieval_only")
    assert turn.status == TurnStatus.DONE and turn.answer["answer"] is None
    cited = {c["contract_id"] for c in turn.answer["citations"]}
    assert "c03" in cited  # its ARTICLE 4 — EXCLUSIVITÉ
    kinds = [(s.kind, s.name) for s in steps(turn)]
    assert ("check", "no_model") in kinds and ("tool", "search_data_room") in kinds


def test_the_conversation_carries_earlier_questions(brenalis_room, ollama):
    fake = ollama(
        tools(expiring(brenalis_room)),
        STOP,
        final(answer="c04 [1], c08, c17, c09.", citations=[1]),
        tools(call("get_contract", contract_id="c04")),
        STOP,
        final(answer="Le 30 novembre 2026 [1].", citations=[1]),
    )
    first = ask(brenalis_room)
    second = ask(brenalis_room, "Et quand finit-il exactement ?", conversation=first.conversation)
    assert second.answer["confidence"] == "high"
    messages = fake.chats()[3]["messages"]
    assert [m["content"] for m in messages[1:3]] == [QUESTION, first.answer["answer"]]


def test_a_turn_left_running_by_a_dead_process_is_taken_up_again(brenalis_room, ollama):
    from datetime import timedelta

    from agents.services import stale_after

    ollama(final(answer="Neuf ans.", citations=[]))
    turn = turn_ask(workspace=brenalis_room.workspace, user=brenalis_room.owner,
                    question="Durée ?", mode="direct")  # fmt: skip
    with workspace_scope(brenalis_room.workspace):
        Turn.objects.filter(pk=turn.pk).update(status=TurnStatus.RUNNING)
    turn.status = TurnStatus.RUNNING
    run_turn(turn, user=brenalis_room.owner)  # running, and recently: left alone
    assert turn.status == TurnStatus.RUNNING
    with workspace_scope(brenalis_room.workspace):
        Turn.objects.filter(pk=turn.pk).update(
            created_at=timezone.now() - stale_after() - timedelta(seconds=1)
        )
        turn.refresh_from_db()
    run_turn(turn, user=brenalis_room.owner)
    assert turn.status == TurnStatus.DONE and turn.answer["answer"] == "Neuf ans."


def test_the_approval_shows_the_call_as_it_would_run(brenalis_room, ollama):
    ollama(tools(call("rate_result", workspace="deal-secret", query="x", chunk_id=1,
                      relevant=True)))  # fmt: skip
    turn = ask(brenalis_room, "Note-le.")
    assert turn.state["pending"]["arguments"]["workspace"] == brenalis_room.workspace.slug


def test_a_member_has_at_most_two_questions_in_progress(brenalis_room, settings):
    from agents.services import TooManyQuestions

    settings.LEXROOM_AGENT_CONCURRENT_QUESTIONS = 2
    for _ in range(2):
        turn_ask(workspace=brenalis_room.workspace, user=brenalis_room.owner, question="Q ?")
    with pytest.raises(TooManyQuestions, match="2"):
        turn_ask(workspace=brenalis_room.workspace, user=brenalis_room.owner, question="Q ?")
    turn_ask(workspace=brenalis_room.workspace, user=brenalis_room.viewer, question="Q ?")


def test_a_question_whose_words_are_all_conditions_gets_an_exhaustive_listing(
    brenalis_room, ollama
):
    fake = ollama(
        tools(call("search_data_room", query="baux commerciaux expirant après 2030")),
        STOP,
        final(answer="Deux baux : c02 [1] et c07 [2].", citations=[1, 2]),
    )
    turn = ask(brenalis_room, "Quels baux commerciaux expirent après 2030 ?")
    assert turn.status == TurnStatus.DONE, turn.error
    [search] = [s for s in steps(turn) if s.name == "search_data_room"]
    assert search.arguments["run"]["query"] == "Quels baux commerciaux expirent après 2030 ?"
    body = next(chat for chat in fake.chats() if tool_messages(chat))
    shown = json.loads(tool_messages(body)[-1].split("\n", 1)[1].rsplit("\n", 1)[0])
    # The search read the type and the end date and nothing was left to rank: a listing.
    assert shown["exhaustive"] is True
    assert sorted(c["contract_id"] for c in shown["contracts"]) == ["c02", "c07"]
