"""The local LLM, through the official ``ollama`` client: one place that knows how to ask it.

Nothing here leaves the firm's machines: ``OLLAMA_URL`` names the firm's own Ollama server.
Text read from documents is data: callers put it in a delimited user message, never in the
system prompt, and ask for a JSON answer checked against a schema before it is used.
"""

from __future__ import annotations

import json
import re
import time
from functools import cache
from typing import Any
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
    except ollama.ResponseError as exc:
        raise LlmUnavailable(response_error_message(model, exc)) from exc
    except (httpx.HTTPError, ConnectionError) as exc:
        raise LlmUnavailable(unreachable_message(exc)) from exc
    except (ValueError, pydantic.ValidationError) as exc:  # not Ollama's protocol (a proxy?)
        raise LlmUnavailable(
            gettext("The server at %(url)s does not answer as Ollama does.")
            % {"url": shown_url(settings.OLLAMA_URL)}
        ) from exc
    return _parsed("".join(content), schema)


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
