"""A fake Ollama: a real HTTP server on a loopback socket speaking Ollama's API.

The product talks to it through the official ``ollama`` client, as it would to a real
server: ``/api/chat`` (streamed NDJSON, or one JSON object when ``"stream": false``, with
``tool_calls`` and the timing and token counts Ollama reports), ``/api/tags``, ``/api/show``
(with ``capabilities``), ``/api/ps`` and ``/api/version``. Each test scripts the answers with
a ``respond(body) -> message`` function; every request body is kept in ``requests``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# A scripted answer: {"content": "...", "tool_calls": [...]} (either may be absent).
Responder = Callable[[dict[str, Any]], dict[str, Any]]
CREATED_AT = "2026-12-01T08:00:00.000000Z"
EXPIRES_AT = "2026-12-01T08:05:00.000000Z"
VERSION = "0.12.3"


@dataclass
class FakeOllama:
    respond: Responder
    models: tuple[str, ...] = ("qwen3:8b",)
    capabilities: tuple[str, ...] | None = ("completion", "tools")  # None: Ollama before 0.6.4
    requests: list[dict[str, Any]] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "start() first"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> FakeOllama:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def chats(self) -> list[dict[str, Any]]:
        return [body for body in self.requests if body.get("_path") == "/api/chat"]


def _model_entry(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "model": name,
        "modified_at": CREATED_AT,
        "size": 5_200_000_000,
        "digest": "0" * 64,
        "details": {"format": "gguf", "family": "qwen3", "parameter_size": "8.2B"},
    }


def _show(
    name: str, details: dict[str, Any], capabilities: tuple[str, ...] | None
) -> dict[str, Any]:
    """What Ollama's /api/show answers (the fields its client requires, and capabilities)."""
    return {
        "modelfile": f"FROM {name}",
        "parameters": "temperature 0.6",
        "template": "{{ .Prompt }}",
        "details": details,
        "model_info": {"general.architecture": details["family"], "general.parameter_count": 8},
        "capabilities": None if capabilities is None else list(capabilities),
        "modified_at": CREATED_AT,
    }


def _stats(body: dict[str, Any], content: str) -> dict[str, Any]:
    prompt = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
    return {
        "done": True,
        "done_reason": "stop",
        "total_duration": 120_000_000,
        "load_duration": 1_000_000,
        "prompt_eval_count": max(1, prompt // 4),
        "prompt_eval_duration": 40_000_000,
        "eval_count": max(1, len(content) // 4),
        "eval_duration": 80_000_000,
    }


def _chat_lines(fake: FakeOllama, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
    message = fake.respond(body)
    content = str(message.get("content", ""))
    head = {"model": body["model"], "created_at": CREATED_AT}
    if body.get("stream", True) is False:
        reply = {"role": "assistant", "content": content}
        if message.get("tool_calls"):
            reply["tool_calls"] = message["tool_calls"]
        yield {**head, "message": reply, **_stats(body, content)}
        return
    if message.get("tool_calls"):
        tool_message = {"role": "assistant", "content": "", "tool_calls": message["tool_calls"]}
        yield {**head, "message": tool_message, "done": False}
    for start in range(0, len(content), 8):
        piece = {"role": "assistant", "content": content[start : start + 8]}
        yield {**head, "message": piece, "done": False}
    yield {**head, "message": {"role": "assistant", "content": ""}, **_stats(body, content)}


def _handler(fake: FakeOllama) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def _send(self, status: int, payload: Any, *, ndjson: bool = False) -> None:
            lines = payload if ndjson else [payload]
            data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
            self.send_response(status)
            self.send_header(
                "Content-Type", "application/x-ndjson" if ndjson else "application/json"
            )
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            fake.requests.append({"_path": self.path})
            if self.path == "/api/tags":
                self._send(200, {"models": [_model_entry(m) for m in fake.models]})
            elif self.path == "/api/ps":
                loaded = {"size_vram": 5_200_000_000, "expires_at": EXPIRES_AT}
                self._send(
                    200, {"models": [{**_model_entry(m), **loaded} for m in fake.models[:1]]}
                )
            elif self.path == "/api/version":
                self._send(200, {"version": VERSION})
            else:
                self._send(404, {"error": "not found"})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            fake.requests.append({**body, "_path": self.path})
            if self.path not in {"/api/chat", "/api/show"}:
                self._send(404, {"error": "not found"})
            elif body.get("model") not in fake.models:
                missing = f'model "{body.get("model")}" not found, try pulling it first'
                self._send(404, {"error": missing})
            elif self.path == "/api/show":
                details = _model_entry(body["model"])["details"]
                self._send(200, _show(body["model"], details, fake.capabilities))
            else:
                lines = list(_chat_lines(fake, body))
                if body.get("stream", True) is False:
                    self._send(200, lines[0])
                else:
                    self._send(200, lines, ndjson=True)

    return Handler
