"""OpenTelemetry: a span per turn with a child per model and tool call (GenAI attributes,
tokens), none of the prompt or document text; nothing at all without an endpoint."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agents import telemetry
from agents.chat import run_turn
from agents.services import turn_ask
from tests.helpers.agent import STOP, expiring, final, tools

pytestmark = pytest.mark.django_db


@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    telemetry.configure(exporter=exporter)
    yield exporter
    telemetry.reset()


def test_a_turn_is_a_span_with_a_child_per_model_and_tool_call(brenalis_room, ollama, spans):
    ollama(tools(expiring(brenalis_room)), STOP,
           final(answer="c04 [1] ; c08, c17 indécis ; c09 prolongé.", citations=[1]))  # fmt: skip
    turn = turn_ask(workspace=brenalis_room.workspace, user=brenalis_room.owner, question="Q ?")
    run_turn(turn, user=brenalis_room.owner)
    finished = {span.name: span for span in spans.get_finished_spans()}
    root = finished["lexroom.agent.turn"]
    assert root.attributes["lexroom.turn_id"] == turn.pk
    model = finished["chat qwen3:8b"]
    assert model.parent.span_id == root.context.span_id
    assert model.attributes["gen_ai.request.model"] == "qwen3:8b"
    assert model.attributes["gen_ai.usage.input_tokens"] > 0
    tool = finished["tool search_data_room"]
    assert tool.attributes["gen_ai.tool.name"] == "search_data_room"
    assert tool.end_time - tool.start_time > 0
    text = repr([dict(span.attributes) for span in spans.get_finished_spans()])
    assert "Q ?" not in text and "Brenalis" not in text  # no question, no document text


def test_without_an_endpoint_nothing_is_exported(settings):
    settings.OTEL_EXPORTER_OTLP_ENDPOINT = ""
    telemetry.reset()
    assert telemetry.configure() is False


def test_with_an_endpoint_spans_are_posted_over_otlp_http(brenalis_room, ollama, settings):
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    received: list[tuple[str, str, bytes]] = []

    class Collector(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            return

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            received.append((self.path, self.headers["Content-Type"], body))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        ollama(final(answer="Neuf ans.", citations=[]))
        settings.OTEL_EXPORTER_OTLP_ENDPOINT = f"http://127.0.0.1:{server.server_port}/v1/traces"
        turn = turn_ask(workspace=brenalis_room.workspace, user=brenalis_room.owner,
                        question="Durée ?", mode="direct")  # fmt: skip
        run_turn(turn, user=brenalis_room.owner)
        telemetry.reset()  # shuts the provider down: the batch is sent
    finally:
        server.shutdown()
    [(path, content_type, body)] = received
    assert path == "/v1/traces" and content_type == "application/x-protobuf"
    assert b"lexroom.agent.turn" in body and b"gen_ai.request.model" in body
