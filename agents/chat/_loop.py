"""The agent's loop: plan, tool calls and their results (a bounded number of model turns),
then a draft the code checks before anything is kept.

Each step is written to the turn's trace as it happens and announced through ``emit``
(``plan``, ``tool_call``, ``tool_result``, ``approval_needed``, ``sources``, ``token``,
``done``, ``error``). A call to a tool that changes data pauses the turn: its state is stored,
and the turn resumes from that call once the user approved or refused it.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext

from agents.chat import _prompts
from agents.chat._answer import DRAFT_SCHEMA, Draft, DraftRejected, check_draft, parse_draft
from agents.chat._egress import PUBLIC_TOOLS, answer_refusal, external_refusal, reply_refusal
from agents.chat._finish import abstention, finish, resolved, safe_draft
from agents.chat._links import SafeStream
from agents.chat._sources import SourceBook, tool_message
from agents.chat._stream import AnswerStream
from agents.chat._tools import (
    Caller,
    arguments_as_run,
    needs_approval,
    run_tool,
    tool_schemas,
)
from agents.llm import fast_model, main_model
from agents.models import Mode, Turn, TurnStatus
from agents.selectors import turn_history
from agents.services import trace_add, trace_next_position, turn_save
from agents.telemetry import step_span, turn_span
from core.llm import ChatModel, LlmReply, LlmUnavailable, ToolsUnsupported
from search.paging import MAX_QUERY_CHARS
from workspaces.tenancy import workspace_scope

logger = logging.getLogger(__name__)
Emit = Callable[[str, dict[str, Any]], None]
DRAFT_RETRIES = 2  # a draft citing unknown sources is redone at most twice, then abstains


class Paused(Exception):
    """A call waits for the user's approval."""


@dataclass
class Run:
    turn: Turn
    caller: Caller
    llm: ChatModel
    emit: Emit
    book: SourceBook
    messages: list[dict[str, Any]] = field(default_factory=list)
    steps: int = 0  # model turns with tools so far
    position: int = 0  # trace steps written
    queue: list[dict[str, Any]] = field(default_factory=list)  # calls after a paused one
    tool_calls: int = 0  # calls run for this answer (LEXROOM_AGENT_TOOL_CALLS_PER_ANSWER)

    def record(self, kind: str, name: str, *, reply: LlmReply | None = None, **fields: Any) -> None:
        self.position += 1
        if reply is not None:
            fields.update(tokens_in=reply.tokens_in, tokens_out=reply.tokens_out,
                          duration_ms=reply.duration_ms)  # fmt: skip
            fields["summary"] = {**fields.get("summary", {}), "attempts": reply.attempts,
                                 "load_ms": reply.load_ms, "prompt_ms": reply.prompt_ms,
                                 "eval_ms": reply.eval_ms}  # fmt: skip
        # A tool name is the model's: one longer than the column is still recorded.
        trace_add(self.turn, position=self.position, kind=kind, name=name[:200], **fields)
        step_span(kind, name[:200], fields)

    def state(self, **extra: Any) -> dict[str, Any]:
        return {"messages": self.messages, "book": self.book.as_state(), "steps": self.steps,
                "position": self.position, "queue": self.queue, "tool_calls": self.tool_calls,
                **extra}  # fmt: skip


def new_run(turn: Turn, caller: Caller, llm: ChatModel, emit: Emit) -> Run:
    state = turn.state or {}
    book = SourceBook.from_state(state.get("book", {}))
    book.max_articles = settings.LEXROOM_AGENT_MAX_SOURCES
    run = Run(turn, caller, llm, emit, book, list(state.get("messages", [])))
    run.steps, run.position = int(state.get("steps", 0)), trace_next_position(turn)
    run.queue = list(state.get("queue", []))
    run.tool_calls = int(state.get("tool_calls", 0))
    return run


def _history(turn: Turn) -> list[dict[str, Any]]:
    with workspace_scope(turn.workspace):
        earlier = turn_history(turn=turn, limit=settings.LEXROOM_AGENT_HISTORY_TURNS)
    messages = []
    for past in earlier:
        messages.append({"role": "user", "content": past.question})
        messages.append(
            {"role": "assistant", "content": str((past.answer or {}).get("answer") or "")}
        )
    return messages


def start(run: Run) -> None:
    today = timezone.localdate()
    if run.turn.mode == Mode.DIRECT:
        system = _prompts.direct_prompt(today=today)
    else:
        system = _prompts.system_prompt(title=run.turn.workspace.title, today=today)
    run.messages = [{"role": "system", "content": system}, *_history(run.turn),
                    {"role": "user", "content": run.turn.question}]  # fmt: skip


def _require_tools(run: Run, model: str) -> None:
    capabilities = run.llm.capabilities(model)
    if capabilities is not None and "tools" not in capabilities:
        raise ToolsUnsupported(
            gettext(
                "The model %(model)s cannot call tools (Ollama lists: %(capabilities)s): set "
                "LEXROOM_LLM_MODEL to one that can, such as qwen3:8b, or ask in direct mode."
            )
            % {"model": model, "capabilities": ", ".join(sorted(capabilities)) or "-"}
        )


def _execute(run: Run, call: dict[str, Any]) -> None:
    name, proposed = str(call["name"]), dict(call.get("arguments") or {})
    run.tool_calls += 1
    run.emit("tool_call", {"name": name, "arguments": proposed})
    started = time.perf_counter()
    outcome = run_tool(run.caller, run.book, name, proposed)
    duration_ms = (time.perf_counter() - started) * 1000
    summary = {"count": outcome.count, "excluded": outcome.excluded, "error": outcome.error}
    run.record("tool", name, arguments={"proposed": proposed, "run": outcome.arguments},
               summary=summary, error=outcome.error or "", duration_ms=duration_ms)  # fmt: skip
    run.emit("tool_result", {"name": name, **summary})
    run.messages.append({"role": "tool", "tool_name": name, "content": outcome.message})


def _refusal(run: Run, call: dict[str, Any]) -> dict[str, Any] | None:
    """Why the call may not run (the reply's or the answer's cap, what may leave the server)."""
    # Only what the tools read of the firm's documents counts as copied: the codes and the
    # case law are public.
    read = (m["content"] for m in run.messages
            if m.get("role") == "tool" and m.get("tool_name") not in PUBLIC_TOOLS)  # fmt: skip
    return (
        reply_refusal(int(call.get("position", 0)))
        or answer_refusal(run.tool_calls)
        or external_refusal(
            str(call["name"]),
            dict(call.get("arguments") or {}),
            allowed=run.caller.external_sites,
            read=read,
        )
    )


def _refuse(run: Run, call: dict[str, Any], refusal: dict[str, Any]) -> None:
    """The call is not run: the trace shows it, the model reads why."""
    name, proposed = str(call["name"]), dict(call.get("arguments") or {})
    summary = {"count": None, "excluded": 0, "error": refusal["error"]}
    run.record("refused", name, arguments={"proposed": proposed}, summary=summary,
               error=refusal["error"])  # fmt: skip
    run.emit("tool_result", {"name": name, **summary})
    run.messages.append({"role": "tool", "tool_name": name,
                         "content": tool_message(name, refusal)})  # fmt: skip


def _run_calls(run: Run, calls: list[dict[str, Any]]) -> None:
    for index, call in enumerate(calls):
        refusal = _refusal(run, call)
        if refusal is not None:
            _refuse(run, call, refusal)
            continue
        if needs_approval(run.caller, str(call["name"])):
            run.queue = calls[index + 1 :]
            raise Paused(call)
        _execute(run, call)
    run.queue = []


def _budget_spent(run: Run) -> bool:
    return run.tool_calls >= settings.LEXROOM_AGENT_TOOL_CALLS_PER_ANSWER


def gather(run: Run) -> None:
    """Model turns with tools until the model stops calling them (or the steps run out)."""
    schemas = tool_schemas(external=run.caller.external_sites)
    while run.steps < settings.LEXROOM_AGENT_MAX_STEPS and not _budget_spent(run):
        model = fast_model() if run.steps == 0 else main_model()
        _require_tools(run, model)
        reply = run.llm.chat(model=model, messages=run.messages, tools=schemas)
        run.steps += 1
        calls = [{"name": c.name, "arguments": c.arguments} for c in reply.tool_calls]
        run.record("model", model, reply=reply, summary={"tool_calls": calls})
        if run.steps == 1:
            run.emit("plan", {"model": model, "tool_calls": calls, "note": reply.content[:2000]})
        if not calls:
            return
        run.messages.append(reply.message())
        # Its place in the reply: calls past the per-reply cap are refused, not run.
        _run_calls(run, [{**call, "position": i} for i, call in enumerate(calls)])


def gather_without_model(run: Run, why: str) -> None:
    """Sources only, with no model to plan: the question itself searches the data room, run
    and checked as a model's call would be. ``why`` (the model's failure, for IT) goes to
    the trace and the log, not to the lawyer."""
    logger.warning("turn %s: no model answers, sources only by the question (%s)", run.turn.pk, why)
    run.record("check", "no_model", summary={"why": why})
    note = gettext("No model answers on this server: the question itself is searched.")
    run.emit("plan", {"model": "", "tool_calls": [], "note": note})
    query = run.turn.question[:MAX_QUERY_CHARS]
    _execute(run, {"name": "search_data_room", "arguments": {"query": query}})


def resume(run: Run, pending: dict[str, Any], decision: str) -> None:
    """Carry on from the call that waited: run it if approved, tell the model if refused."""
    run.record("approval", str(pending["name"]), arguments=pending.get("arguments") or {},
               summary={"decision": decision})  # fmt: skip
    refusal = _refusal(run, {**pending, "position": 0})
    if decision == "approved" and refusal is not None:
        _refuse(run, pending, refusal)  # the answer's calls ran out while it waited
    elif decision == "approved":
        _execute(run, pending)
    else:
        refusal = {"error": "refused", "message": "The user refused this call; do not retry it."}
        run.messages.append({"role": "tool", "tool_name": str(pending["name"]),
                             "content": json.dumps(refusal)})  # fmt: skip
    _run_calls(run, run.queue)


def _drafted(run: Run, *, schema_model: str, attempt: int) -> LlmReply:
    if attempt:
        run.emit("token", {"reset": True})

    # The draft as it is written, its images and outside links held back like the answer's.
    def show(text: str, reset: bool) -> None:
        if reset:
            run.emit("token", {"reset": True})
        run.emit("token", {"text": text})

    shown = SafeStream(show)
    stream = AnswerStream(shown.feed)
    reply = run.llm.chat(
        model=schema_model, messages=run.messages, schema=DRAFT_SCHEMA, on_token=stream.feed
    )
    shown.flush()
    run.record("model", schema_model, reply=reply, summary={"draft": attempt + 1})
    return reply


def draft(run: Run, *, sourced: bool) -> Draft:
    """The model's checked draft, or the code's abstention after ``DRAFT_RETRIES`` retries."""
    for attempt in range(DRAFT_RETRIES + 1):
        reply = _drafted(run, schema_model=main_model(), attempt=attempt)
        try:
            try:
                parsed = parse_draft(json.loads(reply.content))
            except ValueError:  # not JSON, or a number of thousands of digits
                raise DraftRejected("Answer with the JSON object asked for.", "malformed") from None
            if sourced and not run.book.sources and parsed.confidence != "abstain":
                return abstention(run.turn.workspace, _no_sources())
            check_draft(parsed, run.book, sourced=sourced)
            return parsed
        except DraftRejected as rejected:
            run.record("check", rejected.kind, summary={"feedback": rejected.feedback,
                                                        "attempt": attempt + 1})  # fmt: skip
            if attempt == DRAFT_RETRIES:
                break
            run.messages += [reply.message(), {"role": "user", "content": rejected.feedback}]
    missing = gettext(
        "an answer whose citations and form the code could verify (the model's drafts "
        "failed the checks: see the trace)"
    )
    return abstention(run.turn.workspace, missing)


def no_model_message() -> str:
    return gettext(
        "No model answers on this server at the moment. Ask in “Sources only” mode to see the "
        "documents and articles the search finds; your firm's IT can see what to fix on the "
        "model status page."
    )


def _no_sources() -> str:
    return gettext(
        "a document of the data room that answers the question (the searches found none)"
    )


def answer(run: Run) -> dict[str, Any]:
    run.emit("sources", {"sources": resolved(run.turn.workspace, run.book, _all(run.book))})
    run.messages.append({"role": "user", "content": _prompts.draft_prompt(run.book)})
    checked = draft(run, sourced=True)
    result = finish(run.turn.workspace, run.book, checked)
    run.record("check", "answer", summary=result["checks"])
    return result


def _all(book: SourceBook) -> list[int]:
    return [source.n for source in book.sources]


def retrieval_only(run: Run) -> dict[str, Any]:
    sources = resolved(run.turn.workspace, run.book, _all(run.book))
    run.emit("sources", {"sources": sources})
    listing = run.book.listings[-1] if run.book.listings else None
    return {
        "answer": None,
        "citations": sources,
        "confidence": None,
        "listing": None if listing is None else listing.__dict__,
    }


def direct(run: Run) -> dict[str, Any]:
    checked, removed = safe_draft(draft(run, sourced=False))
    if checked.confidence == "high":
        checked.confidence = "medium"  # nothing backs it: never shown as certain
    return {"answer": checked.answer, "segments": [{"text": checked.answer}], "citations": [],
            "confidence": checked.confidence, "missing": checked.missing or None,
            "escalate_to": checked.escalate_to or None, "unsourced": True,
            "checks": {"links_removed": removed}}  # fmt: skip


def complete(run: Run) -> None:
    """Run the turn from where its state stands to an answer, or to a pause (raises
    :class:`Paused`)."""
    mode = run.turn.mode
    if mode == Mode.DIRECT:
        result = direct(run)
    elif mode == Mode.RETRIEVAL_ONLY:
        try:
            gather(run)
        except LlmUnavailable as exc:
            if run.steps:
                raise
            gather_without_model(run, str(exc))
        result = retrieval_only(run)
    else:
        gather(run)
        result = answer(run)
    result["mode"] = mode
    turn_save(run.turn, status=TurnStatus.DONE, answer=result, error="", state=run.state())
    run.emit("done", {"status": TurnStatus.DONE, "answer": result})


def fail(run: Run, message: str) -> None:
    run.record("error", "error", error=message)
    turn_save(run.turn, status=TurnStatus.FAILED, error=message, state=run.state())
    run.emit("error", {"message": message})


def pause(run: Run, call: dict[str, Any]) -> None:
    # What the page asks about is what would run (the workspace set by the code, not the
    # model's), so the user approves the real call.
    name = str(call["name"])
    arguments = arguments_as_run(run.caller, name, dict(call.get("arguments") or {}))
    pending = {"name": name, "arguments": arguments}
    turn_save(run.turn, status=TurnStatus.AWAITING_APPROVAL, state=run.state(pending=pending))
    run.emit("approval_needed", {"turn": run.turn.pk, "tool": pending["name"],
                                 "arguments": pending["arguments"]})  # fmt: skip
    run.emit("done", {"status": TurnStatus.AWAITING_APPROVAL, "answer": None})


def drive(run: Run, *, decision: str | None, pending: dict[str, Any] | None) -> None:
    """The turn from its state to an answer, a pause or a failure, all recorded."""
    try:
        with turn_span(run.turn.pk, run.turn.mode):
            if decision and pending:
                resume(run, pending, decision)
            complete(run)
    except Paused as paused:
        pause(run, paused.args[0])
    except LlmUnavailable as exc:
        # The lawyer is told what still works; how to fix the model is for IT (the trace,
        # the log and /llm/ say it).
        logger.warning("turn %s: %s", run.turn.pk, exc)
        run.record("error", "model_unavailable", error=str(exc))
        fail(run, no_model_message())
    except Exception:
        logger.exception("agent turn %s failed", run.turn.pk)
        fail(run, gettext("The agent failed on an unexpected error; it is in the server's log."))
