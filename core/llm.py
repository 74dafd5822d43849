"""The local LLM, through the official ``ollama`` client: the one place that knows how to ask it.

Nothing here leaves the firm's machines: ``OLLAMA_URL`` names the firm's own Ollama server.
Two ways to ask, over one client per address:

- :func:`chat_json`, one bounded question whose answer must be a JSON object (document
  analysis, compliance rules, the search judge). Text read from documents is data: callers put
  it in a delimited user message, never in the system prompt, and the answer is checked
  against a schema before it is used.
- :class:`ChatModel`, what the agent needs: one chat turn (with tools offered, or with a JSON
  schema for the answer), streamed so tokens can be shown as they come, and what a model can
  do (``/api/show`` capabilities). :class:`OllamaChat` implements it; an OpenAI-compatible
  endpoint could be a second implementation.

Every failure is an :class:`LlmUnavailable` whose message says what IT should do: start
Ollama, pull the model, pick one with tool support.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx
import ollama
import pydantic
from django.conf import settings
from django.utils.translation import gettext

from core.embeddings import ModelUnavailable


class LlmUnavailable(ModelUnavailable):
    """Ollama cannot answer: not running, model not pulled, or an answer that is not JSON."""

    setting = "OLLAMA_URL"


@cache
def _client(host: str, timeout: float) -> ollama.Client:
    return ollama.Client(host=host, timeout=timeout)


def probe_client() -> ollama.Client:
    """A client for a quick look at ``OLLAMA_URL`` (a page asking whether a model answers):
    two seconds at most, whatever the chat's timeout."""
    return _client(settings.OLLAMA_URL, 2.0)


def llm_client() -> ollama.Client:
    """The client for ``OLLAMA_URL`` (one per address and timeout; it is thread-safe)."""
    return _client(settings.OLLAMA_URL, float(settings.LEXROOM_LLM_TIMEOUT))


def chat_json(
    *,
    model: str,
    system: str,
    user: str,
    schema: dict[str, Any],
    max_chars: int = 4000,
    deadline: float | None = None,
) -> dict[str, Any]:
    """One chat turn whose answer must be a JSON object with ``schema``'s top-level
    ``required`` keys; temperature 0 so the same question gets the same answer. The answer is
    streamed so that one longer than ``max_chars``, or still coming at ``deadline``
    (``time.monotonic()``), is cut off and refused instead of read to its end."""
    content: list[str] = []
    size = 0
    try:
        parts = llm_client().chat(
            model=model,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
            format=schema,
            options={"temperature": 0},
            stream=True,
        )
        for part in parts:
            piece = part.message.content or ""
            size += len(piece)
            content.append(piece)
            if size > max_chars or (deadline is not None and time.monotonic() > deadline):
                parts.close()  # type: ignore[attr-defined]  # a generator: ends the request
                raise LlmUnavailable(gettext("The model's answer is too long or too late."))
    # ValueError (pydantic's ValidationError among them): not Ollama's protocol (a proxy?).
    except (ollama.ResponseError, httpx.HTTPError, ConnectionError, ValueError) as exc:
        raise _refusal(model, settings.OLLAMA_URL, exc) from exc
    return _parsed("".join(content), schema)


def _refusal(model: str, host: str, exc: Exception) -> LlmUnavailable:
    """What a failed call to Ollama means, in words for IT; ``exc`` itself when it is none of
    the failures the client is known to raise (a bug here, not Ollama's)."""
    if isinstance(exc, ollama.ResponseError):
        return LlmUnavailable(response_error_message(model, exc))
    if isinstance(exc, httpx.HTTPError | ConnectionError):
        return LlmUnavailable(unreachable_message(exc))
    if isinstance(exc, ValueError | pydantic.ValidationError):  # JSONDecodeError included
        return LlmUnavailable(
            gettext("The server at %(url)s does not answer as Ollama does.")
            % {"url": shown_url(host)}
        )
    raise exc


def unreachable_message(exc: Exception) -> str:
    return gettext(
        "Ollama is not reachable at %(url)s (%(why)s): start it (ollama serve) or set OLLAMA_URL."
    ) % {"url": shown_url(settings.OLLAMA_URL), "why": type(exc).__name__}


# Query parameters whose value is a credential (an API key behind a proxy, a signed URL).
_SECRET_PARAM = re.compile(r"key|token|secret|pass|pwd|auth|sig|cred|session", re.IGNORECASE)


def shown_url(url: str) -> str:
    """``url`` as a page, a message or a log may show it: without ``user:password@`` and with
    the values of credential-like query parameters masked (an ``OLLAMA_URL`` through an
    authenticating proxy holds its password; a turn's error is read by every member)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "(OLLAMA_URL)"  # not an address one can show safely in part
    host = parts.hostname or ""
    netloc = (f"[{host}]" if ":" in host else host) + (f":{port}" if port else "")
    query = urlencode(
        [(k, "***" if _SECRET_PARAM.search(k) else v) for k, v in parse_qsl(parts.query, True)],
        safe="*",
    )
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def response_error_message(model: str, exc: ollama.ResponseError) -> str:
    if exc.status_code == 404:
        return gettext(
            "The model %(model)s is not pulled in Ollama: run ollama pull %(model)s."
        ) % {"model": model}
    return gettext("Ollama refused the request (%(status)s): %(error)s") % {
        "status": exc.status_code,
        "error": str(exc.error)[:200],
    }


def _parsed(content: str, schema: dict[str, Any]) -> dict[str, Any]:
    try:
        answer = json.loads(content)
    except json.JSONDecodeError as exc:
        raise LlmUnavailable(gettext("The model's answer is not JSON.")) from exc
    required = schema.get("required", [])
    if not isinstance(answer, dict) or any(key not in answer for key in required):
        raise LlmUnavailable(
            gettext("The model's answer lacks %(keys)s.") % {"keys": ", ".join(required)}
        )
    return answer


TokenSink = Callable[[str], None]
# How long a model's capabilities are trusted before /api/show is asked again.
CAPABILITIES_TTL_S = 60.0
NS_PER_MS = 1_000_000


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]


@dataclass
class LlmReply:
    """One chat turn's answer with what Ollama reports about it (tokens and durations)."""

    model: str
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tokens_in: int | None = None
    tokens_out: int | None = None
    duration_ms: float = 0.0  # measured here, wall clock
    load_ms: float | None = None  # Ollama's own timings
    prompt_ms: float | None = None
    eval_ms: float | None = None
    attempts: int = 1

    def message(self) -> dict[str, Any]:
        """The assistant message to send back in the conversation."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [
                {"function": {"name": call.name, "arguments": call.arguments}}
                for call in self.tool_calls
            ]
        return message


class ChatModel(Protocol):
    def chat(
        self,
        *,
        model: str,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] | None = None,
        schema: dict[str, Any] | None = None,
        on_token: TokenSink | None = None,
    ) -> LlmReply: ...

    def capabilities(self, model: str) -> frozenset[str] | None: ...


class ToolsUnsupported(LlmUnavailable):
    """The model cannot call tools (Ollama's /api/show lists no ``tools`` capability)."""

    setting = "LEXROOM_LLM_MODEL"


def _ms(nanoseconds: int | None) -> float | None:
    return None if nanoseconds is None else nanoseconds / NS_PER_MS


class OllamaChat:
    """:class:`ChatModel` on Ollama: ``retries`` more attempts when the server cannot be
    reached or fails (5xx) before the answer started; none once tokens were shown."""

    def __init__(self, *, host: str, timeout: float, retries: int, think: bool) -> None:
        self.host = host
        self.client = _client(host, timeout)
        self.timeout = timeout
        self.retries = retries
        self.think = think
        self._capabilities: dict[str, tuple[float, frozenset[str] | None]] = {}
        self._lock = threading.Lock()

    def capabilities(self, model: str) -> frozenset[str] | None:
        """What ``model`` can do (``completion``, ``tools``, ``thinking``…); None when this
        Ollama does not say (before 0.6.4). Raises :class:`LlmUnavailable` when the model is
        not pulled or Ollama does not answer."""
        now = time.monotonic()
        with self._lock:
            cached = self._capabilities.get(model)
        if cached is not None and now - cached[0] < CAPABILITIES_TTL_S:
            return cached[1]
        try:
            shown = self.client.show(model)
        except Exception as exc:
            raise self._failure(model, exc) from exc
        found = frozenset(shown.capabilities) if shown.capabilities is not None else None
        with self._lock:
            self._capabilities[model] = (now, found)
        return found

    def chat(
        self,
        *,
        model: str,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] | None = None,
        schema: dict[str, Any] | None = None,
        on_token: TokenSink | None = None,
    ) -> LlmReply:
        attempt = 0
        while True:
            attempt += 1
            started = time.monotonic()
            reply = LlmReply(model=model, attempts=attempt)
            streamed = False
            try:
                parts = self._stream(model, messages, tools, schema)
                for part in parts:
                    streamed = self._read(part, reply, on_token) or streamed
                    if time.monotonic() - started > self.timeout:
                        parts.close()  # type: ignore[attr-defined]  # a generator: ends the call
                        raise LlmUnavailable(self._too_slow(model))
            except LlmUnavailable:
                raise
            except Exception as exc:
                if streamed or attempt > self.retries or not _transient(exc):
                    raise self._failure(model, exc) from exc
                time.sleep(min(0.5 * attempt, 2.0))
                continue
            reply.duration_ms = (time.monotonic() - started) * 1000
            return reply

    def _stream(
        self,
        model: str,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]] | None,
        schema: dict[str, Any] | None,
    ) -> Iterator[ollama.ChatResponse]:
        return self.client.chat(
            model=model,
            messages=list(messages),
            tools=list(tools) if tools else None,
            format=schema,
            options={"temperature": 0},
            think=self.think,
            stream=True,
        )

    @staticmethod
    def _read(part: ollama.ChatResponse, reply: LlmReply, on_token: TokenSink | None) -> bool:
        """Add one streamed part to ``reply``; True when it carried text shown to the user."""
        message = part.message
        for call in message.tool_calls or ():
            reply.tool_calls.append(ToolCall(call.function.name, dict(call.function.arguments)))
        piece = message.content or ""
        if piece:
            reply.content += piece
            if on_token is not None:
                on_token(piece)
        if part.done:
            reply.tokens_in = part.prompt_eval_count
            reply.tokens_out = part.eval_count
            reply.load_ms = _ms(part.load_duration)
            reply.prompt_ms = _ms(part.prompt_eval_duration)
            reply.eval_ms = _ms(part.eval_duration)
        return bool(piece)

    def _too_slow(self, model: str) -> str:
        return gettext(
            "The model %(model)s did not finish within %(seconds)d s (LEXROOM_LLM_TIMEOUT)."
        ) % {"model": model, "seconds": self.timeout}

    def _failure(self, model: str, exc: Exception) -> LlmUnavailable:
        if isinstance(exc, ollama.ResponseError):
            if "does not support tools" in str(exc.error):
                return ToolsUnsupported(
                    gettext("The model %(model)s cannot call tools: %(error)s")
                    % {"model": model, "error": str(exc.error)[:200]}
                )
        elif isinstance(exc, httpx.TimeoutException):
            return LlmUnavailable(self._too_slow(model))
        return _refusal(model, self.host, exc)


def _transient(exc: Exception) -> bool:
    """Worth another attempt: the server was unreachable, timed out or failed (5xx)."""
    if isinstance(exc, ollama.ResponseError):
        return exc.status_code >= 500
    return isinstance(exc, httpx.TransportError | ConnectionError)


_models: dict[tuple[str, float, int, bool], OllamaChat] = {}
_models_lock = threading.Lock()


def chat_model() -> OllamaChat:
    """The configured LLM (one client per address and settings; thread-safe)."""
    key = (
        str(settings.OLLAMA_URL),
        float(settings.LEXROOM_LLM_TIMEOUT),
        int(settings.LEXROOM_LLM_RETRIES),
        bool(settings.LEXROOM_LLM_THINK),
    )
    with _models_lock:
        if key not in _models:
            _models[key] = OllamaChat(host=key[0], timeout=key[1], retries=key[2], think=key[3])
        return _models[key]
