"""Model status, read only: what IT checks when the assistant or search says a model is missing.

Ollama through the client ``core.llm`` builds (version, models pulled and loaded, the
configured models' capabilities), and for embeddings this process's device, GPU memory and the
models it holds. Nothing is pulled or loaded to report, and a stopped Ollama is reported, never
raised: the page and ``manage.py llm_status`` are what one opens when something is down.
"""

from __future__ import annotations

import time

import httpx
import ollama
import pydantic
from django.conf import settings
from django.utils.translation import gettext

from core.embeddings import ResidentModel, embedding_model_name, pick_device, resident_models
from core.llm import llm_client, probe_client, shown_url

# Asking Ollama can fail as HTTP, as a refusal, or with a server that does not speak Ollama.
OLLAMA_ERRORS = (ollama.ResponseError, httpx.HTTPError, ConnectionError, ValueError,
                 pydantic.ValidationError)  # fmt: skip


class ConfiguredModel(pydantic.BaseModel):
    setting: str
    name: str
    pulled: bool = False
    loaded: bool = False
    capabilities: list[str] | None = None  # None: unknown (an older Ollama, or no answer)
    tools: bool | None = None
    problem: str = ""  # in words, with its fix; empty: ready for the assistant


class OllamaStatus(pydantic.BaseModel):
    url: str  # as shown: no credentials (core.llm.shown_url)
    reachable: bool = False
    error: str = ""
    version: str = ""
    # As the official client reads them: model (the name), size, details.parameter_size, …
    pulled: list[ollama.ListResponse.Model] = []
    loaded: list[ollama.ProcessResponse.Model] = []  # … and size_vram, expires_at
    configured: list[ConfiguredModel] = []


class GpuMemory(pydantic.BaseModel):
    index: int
    name: str
    free_bytes: int
    total_bytes: int


class EmbeddingStatus(pydantic.BaseModel):
    model: str
    device: str
    cuda_available: bool
    gpus: list[GpuMemory]
    gpu_error: str
    resident: list[ResidentModel]  # in this process only: the web server's, or the command's


class LlmStatus(pydantic.BaseModel):
    healthy: bool  # Ollama answers and every configured model is pulled with tool support
    problems: list[str]  # each in words, with its fix
    ollama: OllamaStatus
    embeddings: EmbeddingStatus


_ANSWERS_SECONDS = 30.0
_answers: dict[str, tuple[float, bool]] = {}


def model_answers() -> bool:
    """Whether the configured model can answer (Ollama reachable, the model pulled), looked
    at two seconds at most and kept half a minute per process: the chat page says so before
    the first question."""
    key = f"{settings.OLLAMA_URL}|{settings.LEXROOM_LLM_MODEL}"
    now = time.monotonic()
    seen = _answers.get(key)
    if seen is not None and now - seen[0] < _ANSWERS_SECONDS:
        return seen[1]
    try:
        pulled = {_full_name(m.model or "") for m in probe_client().list().models}
        answers = _full_name(settings.LEXROOM_LLM_MODEL) in pulled
    except OLLAMA_ERRORS:
        answers = False
    _answers[key] = (now, answers)
    return answers


def llm_status() -> LlmStatus:
    """The local models as this process sees them now; never raises for a model that is down."""
    ollama_status = _ollama_status()
    if ollama_status.reachable:
        problems = [model.problem for model in ollama_status.configured if model.problem]
    else:
        problems = [ollama_status.error]
    return LlmStatus(
        healthy=not problems,
        problems=problems,
        ollama=ollama_status,
        embeddings=_embedding_status(),
    )


def _ollama_status() -> OllamaStatus:
    client = llm_client()
    status = OllamaStatus(url=shown_url(settings.OLLAMA_URL))
    main, fast = settings.LEXROOM_LLM_MODEL, settings.LEXROOM_LLM_FAST_MODEL
    status.configured = [ConfiguredModel(setting="LEXROOM_LLM_MODEL", name=main)]
    if fast and fast != main:  # empty: the main model plans too
        status.configured.append(ConfiguredModel(setting="LEXROOM_LLM_FAST_MODEL", name=fast))
    try:
        status.version = _version(client)
        status.pulled = list(client.list().models)
        status.loaded = list(client.ps().models)
    except OLLAMA_ERRORS as exc:
        status.error = _failure(exc)
        return status
    status.reachable = True
    pulled = {_full_name(model.model or "") for model in status.pulled}
    loaded = {_full_name(model.model or "") for model in status.loaded}
    for model in status.configured:
        model.pulled = _full_name(model.name) in pulled
        model.loaded = _full_name(model.name) in loaded
        _check_tools(client, model)
    return status


def _version(client: ollama.Client) -> str:
    # The client (0.6.3) has no version(): its httpx client asks, OLLAMA_URL parsed, same timeout.
    http: httpx.Client = client._client
    response = http.get("/api/version")
    if response.is_error:
        raise ollama.ResponseError(response.text, response.status_code)
    answer = response.json()
    if not isinstance(answer, dict) or not isinstance(answer.get("version"), str):
        raise ValueError("no version in Ollama's answer")
    return str(answer["version"])


def _full_name(name: str) -> str:
    """Ollama's own spelling: a name without a tag is its ``:latest``."""
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def _check_tools(client: ollama.Client, model: ConfiguredModel) -> None:
    """Its capabilities from ``/api/show`` when pulled, and what stops the assistant using it."""
    names = {"model": model.name, "setting": model.setting}
    if not model.pulled:
        model.problem = _not_pulled(model.name)
        return
    try:
        model.capabilities = client.show(_full_name(model.name)).capabilities
    except OLLAMA_ERRORS as exc:
        model.problem = _failure(exc, model=model.name)
        return
    if model.capabilities is None:
        model.problem = (
            gettext(
                "Ollama does not say whether %(model)s can call tools (an older Ollama): update it."
            )
            % names
        )
        return
    model.tools = "tools" in model.capabilities
    if not model.tools:
        model.problem = (
            gettext("%(model)s cannot call tools: set %(setting)s to a model with tool support.")
            % names
        )


def _failure(exc: Exception, *, model: str = "") -> str:
    """In words, with the fix: the same sentences as core.llm's errors."""
    if isinstance(exc, ollama.ResponseError) and exc.status_code == 404 and model:
        return _not_pulled(model)
    if isinstance(exc, ollama.ResponseError):
        return gettext("Ollama refused the request (%(status)s): %(error)s") % {
            "status": exc.status_code,
            "error": str(exc.error)[:200],
        }
    if isinstance(exc, httpx.HTTPError | ConnectionError):
        return gettext(
            "Ollama is not reachable at %(url)s (%(why)s): start it (ollama serve) or set "
            "OLLAMA_URL."
        ) % {"url": shown_url(settings.OLLAMA_URL), "why": type(exc).__name__}
    return gettext("The server at %(url)s does not answer as Ollama does.") % {
        "url": shown_url(settings.OLLAMA_URL)
    }


def _not_pulled(model: str) -> str:
    return gettext("The model %(model)s is not pulled in Ollama: run ollama pull %(model)s.") % {
        "model": model
    }


def _embedding_status() -> EmbeddingStatus:
    import torch

    cuda = torch.cuda.is_available()
    gpus: list[GpuMemory] = []
    gpu_error = ""
    try:
        for index in range(torch.cuda.device_count() if cuda else 0):
            # The driver's count for the whole device, other processes included; a process
            # that has not used this GPU yet first creates a CUDA context on it.
            free, total = torch.cuda.mem_get_info(index)
            name = torch.cuda.get_device_name(index)
            gpus.append(GpuMemory(index=index, name=name, free_bytes=free, total_bytes=total))
    except RuntimeError as exc:  # a driver error: report it, keep the page
        gpu_error = str(exc)[:200]
    return EmbeddingStatus(
        model=embedding_model_name(),
        device=pick_device(settings.LEXROOM_EMBEDDING_DEVICE),
        cuda_available=cuda,
        gpus=gpus,
        gpu_error=gpu_error,
        resident=resident_models(),
    )
