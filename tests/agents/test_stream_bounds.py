"""Answer streams under ASGI (uvicorn serving config.asgi) are bounded: while they wait on a
turn running elsewhere they hold no database connection (counted in pg_stat_activity), a
user and a firm may follow only so many at once (429 with Retry-After past it), and another
firm is answered meanwhile."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn
from django.db import connection
from django.test import Client, override_settings

from agents.models import Turn, TurnStatus
from agents.services import turn_ask, turn_claim, turn_save
from tests.factories import FirmFactory, MembershipFactory, UserFactory, WorkspaceFactory
from workspaces.models import Role, User, Workspace

# The server's threads must see the test's rows: no test transaction around them.
pytestmark = pytest.mark.django_db(transaction=True)


@dataclass
class Member:
    user: User
    cookie: str


@dataclass
class Served:
    url: str
    workspace: Workspace
    turn: Turn  # first's, running elsewhere (claimed, no run in this server)
    second_turn: Turn  # second's, likewise
    first: Member
    second: Member  # same firm
    foreign: Member  # another firm
    foreign_workspace: Workspace


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _member(workspace: Workspace, email: str) -> Member:
    user = UserFactory(firm=workspace.firm, email=email)
    MembershipFactory(workspace=workspace, user=user, role=Role.OWNER)
    client = Client()
    client.force_login(user)
    return Member(user, client.cookies["sessionid"].value)


def _running(workspace: Workspace, user: User) -> Turn:
    """A turn another process is answering (claimed, no step yet)."""
    turn = turn_ask(workspace=workspace, user=user, question="Quelles échéances ?")
    assert turn_claim(turn=turn, statuses=(TurnStatus.PENDING,))
    return turn


@pytest.fixture
def served(transactional_db) -> Iterator[Served]:
    from config.asgi import application

    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(application, host="127.0.0.1", port=port, lifespan="on", log_level="warning")
    )
    with override_settings(ALLOWED_HOSTS=["127.0.0.1"]):
        workspace = WorkspaceFactory(firm=FirmFactory(name="Cabinet Flux"), slug="flux-streams")
        foreign_workspace = WorkspaceFactory(
            firm=FirmFactory(name="Cabinet Voisin"), slug="voisin-streams"
        )
        first = _member(workspace, "first@flux.test")
        second = _member(workspace, "second@flux.test")
        foreign = _member(foreign_workspace, "someone@voisin.test")
        turn, second_turn = (_running(workspace, member.user) for member in (first, second))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        try:
            yield Served(f"http://127.0.0.1:{port}", workspace, turn, second_turn, first, second,
                         foreign, foreign_workspace)  # fmt: skip
        finally:
            server.should_exit = True
            thread.join(timeout=10)


def _events_url(served: Served, turn: Turn) -> str:
    return f"{served.url}/w/{turn.workspace.slug}/chat/turns/{turn.pk}/events/"


class Opened:
    """Streams held open (headers received) until closed."""

    def __init__(self) -> None:
        self.stack = ExitStack()
        self.responses: list[httpx.Response] = []

    def open(self, url: str, member: Member) -> httpx.Response:
        http = self.stack.enter_context(
            httpx.Client(cookies={"sessionid": member.cookie}, timeout=30)
        )
        response = self.stack.enter_context(http.stream("GET", url))
        self.responses.append(response)
        return response

    def close(self) -> None:
        self.stack.close()


def _connections() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        )
        return int(cursor.fetchone()[0])


def _open_many(served: Served, count: int) -> Opened:
    opened = Opened()
    url = _events_url(served, served.turn)
    threads = [threading.Thread(target=opened.open, args=(url, served.first)) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return opened


def test_waiting_streams_hold_no_database_connection(served: Served):
    before = _connections()
    with override_settings(
        LEXROOM_STREAMS_PER_USER=40, LEXROOM_STREAMS_PER_FIRM=40, LEXROOM_REQUESTS_PER_CREDENTIAL=40
    ):
        opened = _open_many(served, 30)
        try:
            assert [r.status_code for r in opened.responses] == [200] * 30
            time.sleep(2.5)  # two polls of the running turn each
            held = []
            for _ in range(5):
                held.append(_connections() - before)
                time.sleep(0.2)
            # Each stream held one (its request's) or two before; now only a poll's moment.
            assert max(held) < 8, held
            turn_save(served.turn, status=TurnStatus.DONE, answer={"text": "Fin 2026."})
            lines = [next(r.iter_lines()) for r in opened.responses[:3]]
            assert all(line in {"event: sources", ": keep-alive"} for line in lines), lines
        finally:
            opened.close()
            turn_save(served.turn, status=TurnStatus.RUNNING)


def test_a_burst_of_one_sessions_streams_is_refused_before_django(served: Served):
    """Thirty opens at once from one browser: past the credential's requests in flight, 429
    at once (no thread, no connection taken); the ones let in are served."""
    before = _connections()
    with override_settings(
        LEXROOM_STREAMS_PER_USER=40, LEXROOM_STREAMS_PER_FIRM=40, LEXROOM_REQUESTS_PER_CREDENTIAL=5
    ):
        opened = _open_many(served, 30)
        try:
            statuses = sorted(r.status_code for r in opened.responses)
            assert statuses == [200] * 5 + [429] * 25, statuses
            refused = next(r for r in opened.responses if r.status_code == 429)
            assert refused.headers["retry-after"] == "1"
            assert _connections() - before < 8
        finally:
            opened.close()


def _refused(response: httpx.Response) -> dict[str, Any]:
    response.read()
    return {"status": response.status_code, "retry": response.headers.get("retry-after"),
            "text": response.text}  # fmt: skip


def test_past_the_user_cap_a_stream_is_429_with_retry_after_and_others_are_served(served: Served):
    url = _events_url(served, served.turn)
    with override_settings(LEXROOM_STREAMS_PER_USER=2, LEXROOM_STREAMS_PER_FIRM=40):
        opened = Opened()
        try:
            assert [opened.open(url, served.first).status_code for _ in range(2)] == [200, 200]
            refused = _refused(opened.open(url, served.first))
            assert refused["status"] == 429 and int(refused["retry"]) > 0
            assert "2" in refused["text"]
            # A colleague and another firm are still served, pages and streams alike.
            assert (
                opened.open(_events_url(served, served.second_turn), served.second).status_code
                == 200
            )
            with httpx.Client(cookies={"sessionid": served.foreign.cookie}) as http:
                assert http.get(f"{served.url}/api/workspaces/").status_code == 200
        finally:
            opened.close()
        # Closed streams give their slots back (once the server has seen the disconnect).
        deadline, status = time.monotonic() + 10, 0
        while status != 200 and time.monotonic() < deadline:
            again = Opened()
            try:
                status = again.open(url, served.first).status_code
            finally:
                again.close()
            time.sleep(0.1)
        assert status == 200


def test_past_the_firm_cap_a_stream_is_429_and_another_firm_is_not(served: Served):
    url = _events_url(served, served.turn)
    with override_settings(LEXROOM_STREAMS_PER_USER=4, LEXROOM_STREAMS_PER_FIRM=3):
        foreign_turn = _running(served.foreign_workspace, served.foreign.user)
        opened = Opened()
        try:
            assert [opened.open(url, served.first).status_code for _ in range(2)] == [200, 200]
            second = _events_url(served, served.second_turn)
            assert opened.open(second, served.second).status_code == 200
            refused = _refused(opened.open(second, served.second))
            assert refused["status"] == 429 and refused["retry"]
            assert opened.open(_events_url(served, foreign_turn), served.foreign).status_code == 200
        finally:
            opened.close()
