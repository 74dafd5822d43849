"""The chat's events under ASGI (uvicorn serving config.asgi, as `manage.py serve` does):
each event reaches the browser while the turn is still running.

The fake model holds its final answer until the test has read the search's ``tool_result``
event from the stream: were the events buffered to the end of the turn, that event could
never arrive first and the test would time out.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import uvicorn
from django.test import Client, override_settings

from agents.models import Turn
from agents.services import turn_ask
from tests.fake_ollama import FakeOllama
from tests.helpers.agent import STOP, Script, expiring, final, tools
from tests.helpers.rooms import BrenalisRoom

pytestmark = pytest.mark.django_db

HOLD_S = 20.0


@dataclass
class Served:
    url: str
    cookie: str
    turn: Turn
    fake: FakeOllama
    release: threading.Event
    waited: list[bool]  # True: the model was released by the test, not by its timeout


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def served(brenalis_room: BrenalisRoom, django_db_blocker) -> Iterator[Served]:
    from config.asgi import application

    release = threading.Event()
    waited: list[bool] = []

    def held_answer(body: dict[str, Any]) -> dict[str, Any]:
        waited.append(release.wait(HOLD_S))  # until the test has seen the earlier events
        return final(answer="c04 [1] ; c08, c17 indécis ; c09 prolongé par c18.", citations=[1])

    fake = FakeOllama(Script([tools(expiring(brenalis_room)), STOP, held_answer])).start()
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(application, host="127.0.0.1", port=port, lifespan="on", log_level="warning")
    )
    with (
        django_db_blocker.unblock(),
        override_settings(
            OLLAMA_URL=fake.url,
            LEXROOM_LLM_RETRIES=0,
            LEXROOM_LLM_FAST_MODEL="",
            ALLOWED_HOSTS=["127.0.0.1"],
        ),
    ):
        client = Client()
        client.force_login(brenalis_room.owner)
        turn = turn_ask(workspace=brenalis_room.workspace, user=brenalis_room.owner,
                        question="Quels contrats expirent avant fin 2026 ?")  # fmt: skip
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        try:
            yield Served(f"http://127.0.0.1:{port}", client.cookies["sessionid"].value, turn,
                         fake, release, waited)  # fmt: skip
        finally:
            release.set()
            server.should_exit = True
            thread.join(timeout=10)
            fake.stop()


def test_events_arrive_while_the_turn_runs(served: Served):
    url = f"{served.url}/w/{served.turn.workspace.slug}/chat/turns/{served.turn.pk}/events/"
    seen: list[str] = []
    released_after: list[str] = []
    with httpx.Client(cookies={"sessionid": served.cookie}, timeout=HOLD_S + 10) as http:
        with http.stream("GET", url) as response:
            assert response.status_code == 200
            assert response.headers["content-type"] == "text/event-stream"
            event = ""
            for line in response.iter_lines():
                if line.startswith("event: "):
                    event = line[len("event: ") :]
                elif line.startswith("data: "):
                    seen.append(event)
                    json.loads(line[len("data: ") :])
                    if event == "tool_result" and not served.release.is_set():
                        released_after.extend(seen)  # the model has not answered yet
                        served.release.set()
    assert served.waited == [True], "the events were held back until the turn ended"
    assert released_after == ["plan", "tool_call", "tool_result"]
    assert seen[-1] == "done" and "token" in seen
