"""The chat agent attacked: credentials through the ask tool, approvals, citations and quotes
the checks must catch, document text outside its delimiters, malformed model output."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from agents.chat import run_turn
from agents.llm import LlmReply, ToolCall
from agents.models import Turn, TurnStatus
from agents.services import turn_ask
from agents.tools import call_tool
from search.models import RelevanceJudgment
from tests.agents.conftest import STOP, call, final, tools
from tests.agents.test_chat_pages import streamed
from tests.conftest import BrenalisRoom, login
from workspaces.tenancy import current_scope, workspace_scope
from workspaces.tokens import token_create

pytestmark = pytest.mark.django_db

Step = LlmReply | Callable[[list[dict[str, Any]]], LlmReply]


class InThread:
    """A :class:`ChatModel` answering in the test's own thread (and database connection), so
    a step can change the database between two model calls."""

    def __init__(self, *replies: Step) -> None:
        self.replies = list(replies)
        self.seen: list[list[dict[str, Any]]] = []

    def capabilities(self, model: str) -> frozenset[str]:
        return frozenset({"completion", "tools"})

    def chat(self, *, model: str, messages: Any, tools: Any = None, schema: Any = None,
             on_token: Any = None) -> LlmReply:  # fmt: skip
        self.seen.append([dict(m) for m in messages])
        reply = self.replies.pop(0)
        return reply(self.seen[-1]) if callable(reply) else reply


def calls(*pairs: tuple[str, dict[str, Any]]) -> LlmReply:
    return LlmReply(model="m", tool_calls=[ToolCall(name, args) for name, args in pairs])


def draft(**body: Any) -> LlmReply:
    return LlmReply(model="m", content=json.dumps({"citations": [], "confidence": "high", **body}))


def chunk_of(room: BrenalisRoom, contract_id: str) -> int:
    from documents.models import Chunk

    with workspace_scope(room.workspace):
        return int(
            Chunk.objects.filter(workspace=room.workspace, document__ref=contract_id)
            .order_by("pk")
            .values_list("pk", flat=True)[0]
        )


def run(room: BrenalisRoom, llm: InThread, question: str = "Que dit c04 ?") -> Turn:
    turn = turn_ask(workspace=room.workspace, user=room.owner, question=question)
    run_turn(turn, user=room.owner, llm=llm)
    return turn


# --- Credentials: the ask tool ------------------------------------------------------------


def test_ask_reports_a_call_waiting_for_approval(brenalis_room, ollama):
    """A write the agent wants comes back as approval_needed (README), not as a crash."""
    ollama(tools(call("rate_result", query="x", chunk_id=chunk_of(brenalis_room, "c04"),
                      relevant=True)))  # fmt: skip
    result = call_tool(
        name="ask",
        user=brenalis_room.owner,
        via="cli",
        arguments={"workspace": brenalis_room.workspace.slug, "question": "Note c04."},
    ).content
    assert result["status"] == "awaiting_approval"
    assert result["approval_needed"]["tool"] == "rate_result"


def test_a_read_only_token_never_gets_a_write_through_the_agent(brenalis_room, ollama):
    """Asked through a read-only token, the agent's rate_result must not end as a rating,
    approved on the page or not: read-only tokens never write."""
    _token, raw = token_create(user=brenalis_room.owner, name="ro", read_only=True)
    chunk_id = chunk_of(brenalis_room, "c04")
    ollama(
        tools(call("rate_result", query="x", chunk_id=chunk_id, relevant=True)),
        STOP,
        final(answer="Rien [1].", confidence="abstain", missing="x", escalate_to="y"),
    )
    response = Client().post(
        "/api/tools/ask",
        {"workspace": brenalis_room.workspace.slug, "question": "Note c04 comme pertinent."},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert response.status_code == 200, response.content
    with workspace_scope(brenalis_room.workspace):
        turn = Turn.objects.select_related("workspace").get(pk=response.json()["turn_id"])
    if turn.status == TurnStatus.AWAITING_APPROVAL:
        # The page offers the approval: the owner's session approves it.
        client = login(brenalis_room.owner)
        slug = brenalis_room.workspace.slug
        client.post(f"/w/{slug}/chat/turns/{turn.pk}/decide/", {"approve": "1"},
                    HTTP_HX_REQUEST="true")  # fmt: skip
        with workspace_scope(brenalis_room.workspace):
            turn.refresh_from_db()
        streamed(client, turn)
    with workspace_scope(brenalis_room.workspace):
        assert not RelevanceJudgment.objects.filter(chunk_id=chunk_id).exists()


def test_the_rest_ask_holds_no_transaction_during_model_calls(brenalis_room, ollama, monkeypatch):
    """README: ask "runs outside the call's transaction and opens a scope per step". Over
    REST the view's own scope (and transaction) must not stay open for minutes of model
    calls: rows it wrote (the turn, the conversation's updated_at) stay locked meanwhile."""
    from agents import llm as llm_module

    scopes: list[object] = []
    real_chat = llm_module.OllamaChat.chat

    def spying(self: Any, **kwargs: Any) -> LlmReply:
        scopes.append(current_scope())
        return real_chat(self, **kwargs)

    monkeypatch.setattr(llm_module.OllamaChat, "chat", spying)
    ollama(final(answer="Neuf ans.", citations=[]))
    _token, raw = token_create(user=brenalis_room.owner, name="rw")
    response = Client().post(
        "/api/tools/ask",
        {"workspace": brenalis_room.workspace.slug, "question": "Durée ?", "mode": "direct"},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )
    assert response.status_code == 200, response.content
    assert scopes == [None]
