"""OpenTelemetry spans for the agent: one per turn, a child per model call and tool call.

Off unless ``OTEL_EXPORTER_OTLP_ENDPOINT`` names an OTLP/HTTP collector (and the ``otel``
extra is installed): then spans go there, tagged with the GenAI conventions (model, tokens
in and out) and never with prompt or document text. The trace page holds the same numbers.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from opentelemetry import trace

logger = logging.getLogger(__name__)
_lock = threading.Lock()
_provider: Any = None  # our TracerProvider once configured (None: the global API's no-op)
_configured_for: str | None = None


def configure(*, exporter: Any = None) -> bool:
    """Install a provider exporting to ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or to ``exporter``,
    synchronously: tests). False when neither is set or the SDK is missing."""
    global _provider, _configured_for
    endpoint = str(settings.OTEL_EXPORTER_OTLP_ENDPOINT)
    if exporter is None and not endpoint:
        return False
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
    except ImportError:
        logger.warning("OTEL_EXPORTER_OTLP_ENDPOINT is set but opentelemetry-sdk is missing: "
                       "pip install -e '.[otel]'")  # fmt: skip
        return False
    provider = TracerProvider(resource=Resource.create({"service.name": "lexroom"}))
    if exporter is not None:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    _provider, _configured_for = provider, endpoint
    return True


def reset() -> None:
    global _provider, _configured_for
    with _lock:
        if _provider is not None:
            _provider.shutdown()
        _provider = _configured_for = None


def _tracer() -> trace.Tracer:
    endpoint = str(settings.OTEL_EXPORTER_OTLP_ENDPOINT)
    with _lock:
        if endpoint and _configured_for != endpoint:
            configured = configure()
            _remember(endpoint, configured)
        provider = _provider
    if provider is not None:
        tracer: trace.Tracer = provider.get_tracer("lexroom.agent")
        return tracer
    return trace.get_tracer("lexroom.agent")  # no-op unless the process set a provider


def _remember(endpoint: str, configured: bool) -> None:
    # Tried once per endpoint: a missing SDK is logged once, not at every step.
    global _configured_for
    if not configured:
        _configured_for = endpoint


@contextmanager
def turn_span(turn_id: int, mode: str) -> Iterator[None]:
    with _tracer().start_as_current_span(
        "lexroom.agent.turn", attributes={"lexroom.turn_id": turn_id, "lexroom.mode": mode}
    ):
        yield


def step_span(kind: str, name: str, fields: dict[str, Any]) -> None:
    """A finished step as a span, dated back by its measured duration."""
    end = time.time_ns()
    start = end - int(float(fields.get("duration_ms") or 0) * 1_000_000)
    attributes: dict[str, Any] = {"lexroom.step": kind}
    if kind == "model":
        attributes.update({"gen_ai.system": "ollama", "gen_ai.request.model": name})
        for key, attribute in (("tokens_in", "gen_ai.usage.input_tokens"),
                               ("tokens_out", "gen_ai.usage.output_tokens")):  # fmt: skip
            if fields.get(key) is not None:
                attributes[attribute] = int(fields[key])
    elif kind == "tool":
        attributes["gen_ai.tool.name"] = name
    if fields.get("error"):
        attributes["error.type"] = str(fields["error"])[:100]
    span_name = f"chat {name}" if kind == "model" else f"{kind} {name}"
    span = _tracer().start_span(span_name, start_time=start, attributes=attributes)
    span.end(end_time=end)
