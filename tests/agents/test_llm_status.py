"""Model status (``manage.py llm_status`` and ``/llm/``), against a fake Ollama on a real socket:
version, models pulled and loaded, the configured models' tool support, the embedding side, and
a stopped Ollama reported in words with exit status 1 while the page still answers."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from io import StringIO
from typing import Any

import pytest
import torch
from django.core.management import call_command
from django.test import Client
from django.utils import translation

from agents.status import llm_status
from core import embeddings
from tests.fake_ollama import VERSION, FakeOllama
from tests.helpers.data import TEST_EMBEDDING_MODEL
from tests.helpers.rooms import Room

pytestmark = pytest.mark.django_db


def _no_chat(body: dict[str, Any]) -> dict[str, Any]:
    raise AssertionError("the status asks no model a question")


@pytest.fixture
def fake_ollama(settings) -> Iterator[FakeOllama]:
    fake = FakeOllama(_no_chat, models=("qwen3:8b", "llama3.2:3b")).start()
    settings.OLLAMA_URL = fake.url
    settings.LEXROOM_LLM_MODEL = "qwen3:8b"
    settings.LEXROOM_LLM_FAST_MODEL = ""
    yield fake
    fake.stop()


def _closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"  # nothing listens there once the probe is closed


def llm_status_command(*args: str) -> tuple[int, str]:
    """The command's exit status and output, in English."""
    out = StringIO()
    with translation.override("en"):
        try:
            call_command("llm_status", *args, stdout=out)
        except SystemExit as exited:
            return int(exited.code or 0), out.getvalue()
    return 0, out.getvalue()


def test_ollama_up_reports_version_models_pulled_and_loaded_and_tools(fake_ollama: FakeOllama):
    code, out = llm_status_command()
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0] == f"Ollama {fake_ollama.url}: version {VERSION}"
    assert "  pulled: qwen3:8b (4.8 GB, 8.2B, modified 2026-12-01 09:00)" in lines  # Paris time
    assert "  pulled: llama3.2:3b (4.8 GB, 8.2B, modified 2026-12-01 09:00)" in lines
    assert "  loaded: qwen3:8b (4.8 GB in GPU memory, until 2026-12-01 09:05)" in lines
    assert "qwen3:8b (LEXROOM_LLM_MODEL): pulled, loaded, tools: yes" in lines
    assert lines[-1].startswith("OK: Ollama answers")
    assert not fake_ollama.chats()


def test_json_report_has_the_same_facts(fake_ollama: FakeOllama):
    code, out = llm_status_command("--json")
    report = json.loads(out)
    assert code == 0 and report["healthy"] is True and report["problems"] == []
    ollama = report["ollama"]
    assert ollama["reachable"] is True and ollama["version"] == VERSION
    assert [m["model"] for m in ollama["pulled"]] == ["qwen3:8b", "llama3.2:3b"]
    assert ollama["pulled"][0]["details"]["parameter_size"] == "8.2B"
    assert [(m["model"], m["size_vram"]) for m in ollama["loaded"]] == [("qwen3:8b", 5_200_000_000)]
    assert ollama["configured"] == [
        {"setting": "LEXROOM_LLM_MODEL", "name": "qwen3:8b", "pulled": True, "loaded": True,
         "capabilities": ["completion", "tools"], "tools": True, "problem": ""}
    ]  # fmt: skip
    assert report["embeddings"]["model"] == TEST_EMBEDDING_MODEL


def test_ollama_down_is_said_in_words_and_exits_1(settings):
    settings.OLLAMA_URL = _closed_port_url()
    code, out = llm_status_command()
    assert code == 1
    assert f"Ollama {settings.OLLAMA_URL}: not answering" in out
    assert (
        f"Problem: Ollama is not reachable at {settings.OLLAMA_URL} (ConnectError): start it "
        "(ollama serve) or set OLLAMA_URL." in out
    )
    assert "Embeddings: " in out  # the rest of the report is still there
    code, out = llm_status_command("--json")
    report = json.loads(out)
    assert code == 1 and report["ollama"]["reachable"] is False
    assert report["problems"] == [report["ollama"]["error"]]


def test_ollama_down_the_page_still_answers_with_the_reason(settings, room: Room):
    settings.OLLAMA_URL = _closed_port_url()
    response = _firm_admin_client(room).get("/llm/")
    page = response.content.decode()
    assert response.status_code == 200
    assert 'role="alert"' in page and "ollama serve" in page and settings.OLLAMA_URL in page


def test_a_model_not_pulled_names_the_pull_command(fake_ollama: FakeOllama, settings):
    settings.LEXROOM_LLM_MODEL = "mistral-small3.2:24b"
    code, out = llm_status_command()
    assert code == 1
    assert "mistral-small3.2:24b (LEXROOM_LLM_MODEL): not pulled" in out
    assert "run ollama pull mistral-small3.2:24b." in out
    shown = [body["model"] for body in fake_ollama.requests if body["_path"] == "/api/show"]
    assert shown == []  # not asked about a model it does not have


def test_the_fast_model_is_checked_too_when_set(fake_ollama: FakeOllama, settings):
    settings.LEXROOM_LLM_FAST_MODEL = "llama3.2:3b"
    code, out = llm_status_command()
    assert code == 0, out
    assert "llama3.2:3b (LEXROOM_LLM_FAST_MODEL): pulled, not loaded, tools: yes" in out
    settings.LEXROOM_LLM_FAST_MODEL = "qwen3:1.7b"
    code, out = llm_status_command()
    assert code == 1 and "run ollama pull qwen3:1.7b." in out


def test_a_model_without_tool_support_fails_the_check(fake_ollama: FakeOllama):
    fake_ollama.capabilities = ("completion",)
    code, out = llm_status_command()
    assert code == 1
    assert "qwen3:8b (LEXROOM_LLM_MODEL): pulled, loaded, tools: no" in out
    assert (
        "Problem: qwen3:8b cannot call tools: set LEXROOM_LLM_MODEL to a model with tool support."
        in out
    )


def test_an_ollama_that_does_not_report_capabilities_leaves_tools_unknown(
    fake_ollama: FakeOllama,
):
    fake_ollama.capabilities = None
    code, out = llm_status_command()
    assert code == 1
    assert "tools: unknown" in out and "update it." in out


def test_a_name_without_tag_is_its_latest(fake_ollama: FakeOllama, settings):
    fake_ollama.models = ("qwen3:latest",)
    settings.LEXROOM_LLM_MODEL = "qwen3"
    status = llm_status()
    assert status.healthy, status.problems
    assert status.ollama.configured[0].pulled and status.ollama.configured[0].loaded


def test_gpu_memory_per_device_when_cuda_is_there(fake_ollama: FakeOllama, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda index: f"GPU model {index}")
    free = {0: 30 * 2**30, 1: 70 * 2**30}
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda index: (free[index], 80 * 2**30))
    _code, out = llm_status_command()
    assert "  GPU 1 (GPU model 1): 70.0 GB free of 80.0 GB" in out.splitlines()
    embedding = llm_status().embeddings
    assert embedding.cuda_available and [gpu.free_bytes for gpu in embedding.gpus] == [
        30 * 2**30,
        70 * 2**30,
    ]


def test_resident_models_are_listed_and_the_status_loads_none(fake_ollama: FakeOllama):
    loaded = embeddings._load_encoder.cache_info()
    assert llm_status().embeddings.device == "cpu"
    assert embeddings._load_encoder.cache_info() == loaded  # nothing loaded to report
    encoder = embeddings.get_encoder()  # a search would load it
    resident = llm_status().embeddings.resident
    assert embeddings.ResidentModel("embedding", encoder.name, "cpu") in resident


def _firm_admin_client(room: Room) -> Client:
    room.outsider.is_firm_admin = True  # a member of no workspace: nothing of theirs is shown
    room.outsider.save()
    client = Client()
    client.force_login(room.outsider)
    return client


def test_the_page_shows_version_and_models_to_a_firm_admin(fake_ollama: FakeOllama, room: Room):
    response = _firm_admin_client(room).get("/llm/")
    page = response.content.decode()
    assert response.status_code == 200
    assert VERSION in page and "<code>qwen3:8b</code>" in page and "llama3.2:3b" in page
    assert "LEXROOM_LLM_MODEL" in page and 'aria-current="page">Modèles</a>' in page  # French
    assert "<caption>Modèles configurés</caption>" in page and 'role="status"' in page


def test_the_page_is_for_signed_in_users_only(fake_ollama: FakeOllama):
    response = Client().get("/llm/")
    assert response.status_code == 302 and response["Location"] == "/login/?next=/llm/"
    assert fake_ollama.requests == []  # Ollama is not even asked
