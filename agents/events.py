"""A turn's events as server-sent events (``text/event-stream``).

Under ASGI (``manage.py serve``) the agent runs in a thread of its own and each event is
sent as it happens; a WSGI server gets them all at the end of the turn (it cannot interleave).
A turn that already ran is replayed from what was stored; one running elsewhere (another tab,
the worker) is awaited, then replayed. The run goes on if the browser leaves: the answer is
stored and shown on the next visit.
"""

from __future__ import annotations

import asyncio
import json
import queue
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext

from agents.chat import run_turn
from agents.models import Turn, TurnStatus
from agents.services import turn_runnable
from workspaces.models import User
from workspaces.tenancy import workspace_scope

KEEPALIVE_S = 15.0
POLL_S = 1.0


def sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


def stream(request: HttpRequest, *, turn: Turn, user: User) -> Iterator[str] | AsyncIterator[str]:
    language = translation.get_language()
    if isinstance(request, ASGIRequest):
        return _threaded(turn, user, language)
    return _inline(turn, user, language)


def _inline(turn: Turn, user: User, language: str) -> Iterator[str]:
    with translation.override(language):
        if not turn_runnable(turn):
            yield from _replay(_settled(turn))
            return
        sent: list[str] = []
        run_turn(turn, user=user, emit=lambda event, data: sent.append(sse(event, data)))
        yield from sent


async def _threaded(turn: Turn, user: User, language: str) -> AsyncIterator[str]:
    channel: queue.Queue[str | None] = queue.Queue()

    def work() -> None:
        try:
            with translation.override(language):
                if not turn_runnable(turn):
                    for item in _replay(_settled(turn)):
                        channel.put(item)
                else:
                    run_turn(turn, user=user, emit=lambda e, d: channel.put(sse(e, d)))
        finally:
            connections.close_all()  # this thread's own connection
            channel.put(None)

    threading.Thread(target=work, name=f"agent-turn-{turn.pk}", daemon=True).start()
    while True:
        try:
            item = await asyncio.to_thread(channel.get, True, KEEPALIVE_S)
        except queue.Empty:
            yield ": keep-alive\n\n"  # a comment line: proxies keep the connection open
            continue
        if item is None:
            return
        yield item


def _settled(turn: Turn) -> Turn:
    """The turn once no run is in progress (waits for one running elsewhere)."""
    limit = settings.LEXROOM_LLM_TIMEOUT * (settings.LEXROOM_AGENT_MAX_STEPS + 4)
    deadline = time.monotonic() + limit
    while turn.status == TurnStatus.RUNNING and time.monotonic() < deadline:
        time.sleep(POLL_S)
        with workspace_scope(turn.workspace):
            turn = Turn.objects.select_related("conversation").get(pk=turn.pk)
    return turn


def _replay(turn: Turn) -> Iterator[str]:
    answer = turn.answer or {}
    if turn.status == TurnStatus.DONE:
        yield sse("sources", {"sources": answer.get("citations", [])})
        yield sse("done", {"status": turn.status, "answer": answer})
    elif turn.status == TurnStatus.AWAITING_APPROVAL:
        pending = (turn.state or {}).get("pending") or {}
        yield sse("approval_needed", {"turn": turn.pk, "tool": pending.get("name"),
                                      "arguments": pending.get("arguments", {})})  # fmt: skip
        yield sse("done", {"status": turn.status, "answer": None})
    elif turn.status == TurnStatus.FAILED:
        yield sse("error", {"message": turn.error})
    else:
        yield sse(
            "error", {"message": gettext("The answer is still being prepared: reload later.")}
        )
