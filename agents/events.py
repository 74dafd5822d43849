"""A turn's events as server-sent events (``text/event-stream``).

Under ASGI (``manage.py serve``) the agent runs in a thread of its own and each event is
sent as it happens; a WSGI server gets them all at the end of the turn (it cannot interleave).
A turn that already ran is replayed from what was stored; one running elsewhere (another tab,
the worker) is awaited, then replayed. The run goes on if the browser leaves: the answer is
stored and shown on the next visit.

A stream holds no database connection while it waits: the request's own is closed once the
response starts, a turn running elsewhere is re-read in short reads that give their connection
back, and the agent's thread closes its connection whenever it emits outside a transaction
(it then waits on the model). Without this, each open stream held a connection for minutes
and a few hundred tabs took every connection of the server, other firms' requests included.
"""

from __future__ import annotations

import asyncio
import json
import queue
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import connections
from django.http import HttpRequest
from django.utils import translation
from django.utils.translation import gettext

from agents.chat import run_turn
from agents.models import Turn, TurnStatus
from agents.services import turn_runnable
from agents.streams import StreamSlots
from workspaces.models import User
from workspaces.tenancy import workspace_scope

KEEPALIVE_S = 15.0
POLL_S = 1.0
T = TypeVar("T")


def sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


def release_connections() -> None:
    """Close this thread's database connections that no transaction is using (a pooled
    connection goes back to its pool)."""
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()


def stream(
    request: HttpRequest, *, turn: Turn, user: User, slots: StreamSlots
) -> Iterator[str] | AsyncIterator[str]:
    """The turn's events; ``slots`` (the stream caps' slots it holds) are released when the
    stream ends or the browser leaves."""
    language = translation.get_language()
    if isinstance(request, ASGIRequest):
        return _threaded(turn, user, language, slots)
    return _inline(turn, user, language, slots)


def _inline(turn: Turn, user: User, language: str, slots: StreamSlots) -> Iterator[str]:
    try:
        with translation.override(language):
            if not turn_runnable(turn):
                yield from _replay(_settled(turn))
                return
            sent: list[str] = []
            run_turn(turn, user=user, emit=lambda event, data: sent.append(sse(event, data)))
            yield from sent
    finally:
        slots.release()


async def _read(read: Callable[[Turn], T], turn: Turn) -> T:
    """``read(turn)`` in a worker thread whose connection is closed right after."""

    def released() -> T:
        try:
            return read(turn)
        finally:
            release_connections()

    return await sync_to_async(released, thread_sensitive=False)()


async def _threaded(
    turn: Turn, user: User, language: str, slots: StreamSlots
) -> AsyncIterator[str]:
    try:
        # The request's thread keeps its connection until the response ends (Django closes
        # it then): the view's work is done, give it back now.
        await sync_to_async(release_connections, thread_sensitive=True)()
        if await _read(turn_runnable, turn):
            async for item in _live(turn, user, language):
                yield item
        else:
            async for item in _awaited(turn, language):
                yield item
    finally:
        slots.release()


async def _live(turn: Turn, user: User, language: str) -> AsyncIterator[str]:
    channel: queue.Queue[str | None] = queue.Queue()

    def emit(event: str, data: dict[str, Any]) -> None:
        channel.put(sse(event, data))
        release_connections()  # what follows an event is mostly a wait on the model

    def work() -> None:
        try:
            with translation.override(language):
                run_turn(turn, user=user, emit=emit)
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


async def _awaited(turn: Turn, language: str) -> AsyncIterator[str]:
    """A turn running elsewhere, re-read every POLL_S on no connection of its own, then
    replayed."""
    deadline = time.monotonic() + _settle_limit()
    quiet_since = time.monotonic()
    while turn.status == TurnStatus.RUNNING and time.monotonic() < deadline:
        await asyncio.sleep(POLL_S)
        turn = await _read(_reread, turn)
        if time.monotonic() - quiet_since >= KEEPALIVE_S:
            quiet_since = time.monotonic()
            yield ": keep-alive\n\n"
    with translation.override(language):
        replayed = list(_replay(turn))
    for item in replayed:
        yield item


def _settle_limit() -> float:
    return float(settings.LEXROOM_LLM_TIMEOUT * (settings.LEXROOM_AGENT_MAX_STEPS + 4))


def _reread(turn: Turn) -> Turn:
    with workspace_scope(turn.workspace):
        return Turn.objects.select_related("conversation").get(pk=turn.pk)


def _settled(turn: Turn) -> Turn:
    """The turn once no run is in progress (waits for one running elsewhere, on no
    connection between its reads)."""
    deadline = time.monotonic() + _settle_limit()
    while turn.status == TurnStatus.RUNNING and time.monotonic() < deadline:
        release_connections()
        time.sleep(POLL_S)
        turn = _reread(turn)
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
