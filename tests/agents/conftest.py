"""The agent's tests: a fake Ollama (a real HTTP server, tests/fake_ollama.py) scripted per
test, answering the official client exactly as Ollama's /api/chat does."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.fake_ollama import FakeOllama

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
