"""The agent's tests' shared parts: the scripted model turns the fake Ollama answers with
(``ollama`` fixture, tests/agents/conftest.py), asking the agent on the Brenalis room, reading
its steps, and the chat page's event stream."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.test import Client

from agents.chat import run_turn
from agents.models import Turn
from agents.selectors import trace_steps
from agents.services import turn_ask
from search.selectors import describe_data_room
from tests.helpers.rooms import BrenalisRoom
from workspaces.tenancy import workspace_scope

# --- The model's turns, scripted ---------------------------------------------------------

Reply = dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"function": {"name": name, "arguments": arguments}}


def tools(*calls: dict[str, Any]) -> dict[str, Any]:
    """A model turn that calls tools."""
    return {"content": "", "tool_calls": list(calls)}


def final(**draft: Any) -> dict[str, Any]:
    """The drafted answer (the JSON the schema asks for)."""
    body = {"citations": [], "confidence": "high", **draft}
    return {"content": json.dumps(body, ensure_ascii=False)}


STOP = {"content": "I have what I need."}  # a model turn without tool calls


@dataclass
class Script:
    """Answers in order, one per /api/chat request; a callable gets the request body."""

    replies: list[Reply]
    seen: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        self.seen.append(body)
        if not self.replies:
            raise AssertionError("the agent asked the model more than the script says")
        reply = self.replies.pop(0)
        return reply(body) if callable(reply) else reply


# --- Asking the agent on the Brenalis data room -------------------------------------------

QUESTION = "Quels contrats avec le Groupe Brenalis expirent avant fin 2026 ?"


def brenalis_id(room: BrenalisRoom) -> int:
    with workspace_scope(room.workspace):
        described = describe_data_room(workspace=room.workspace)
    return next(e.entity_id for e in described.entities if e.name == "Groupe Brenalis")


def expiring(room: BrenalisRoom, before: str = "2026-12-31") -> dict[str, Any]:
    filters = {"entity_ids": [brenalis_id(room)], "end_date": {"before": before}}
    return call("search_data_room", filters=filters)


def ask(room: BrenalisRoom, question: str = QUESTION, **kwargs: Any) -> Turn:
    turn = turn_ask(workspace=room.workspace, user=room.owner, question=question, **kwargs)
    events: list[tuple[str, dict[str, Any]]] = []
    run_turn(turn, user=room.owner, emit=lambda e, d: events.append((e, d)))
    turn.events = events  # type: ignore[attr-defined]
    return turn


def steps(turn: Turn) -> list[Any]:
    with workspace_scope(turn.workspace):
        return trace_steps(turn=turn)


def tool_messages(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


# --- The chat page's event stream ---------------------------------------------------------


def events(body: bytes) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for block in body.decode().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in lines:
            found.append((lines["event"], json.loads(lines["data"])))
    return found


def streamed(client: Client, turn: Turn) -> list[tuple[str, dict[str, Any]]]:
    url = f"/w/{turn.workspace.slug}/chat/turns/{turn.pk}/events/"
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "text/event-stream"
    return events(b"".join(response.streaming_content))  # type: ignore[attr-defined]
