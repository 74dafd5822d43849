"""The agent's tests: a fake Ollama (a real HTTP server, tests/fake_ollama.py) scripted per
test (its turns: tests/helpers/agent.py), answering the official client exactly as Ollama's
/api/chat does."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.fake_ollama import FakeOllama
from tests.helpers.agent import Reply, Script


@pytest.fixture
def ollama(settings) -> Iterator[Callable[..., FakeOllama]]:
    started: list[FakeOllama] = []

    def start(*replies: Reply, **options: Any) -> FakeOllama:
        fake = FakeOllama(Script(list(replies)), **options).start()
        settings.OLLAMA_URL = fake.url
        settings.LEXROOM_LLM_MODEL = fake.models[0]
        settings.LEXROOM_LLM_FAST_MODEL = ""
        settings.LEXROOM_LLM_RETRIES = 0
        started.append(fake)
        return fake

    yield start
    for fake in started:
        fake.stop()
