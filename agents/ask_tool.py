"""The agent as a tool: ``ask`` answers a question about a workspace with checked citations,
for MCP and REST clients and the ``ask`` command alike.

It lives on the agent's side and registers itself from ``AgentsConfig.ready()``: the agent
stands on the registry (its tool calls go through ``call_tool``), so the registry must not
import the agent (``tests/test_layering.py``).
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext
from pydantic import BaseModel, ConfigDict, Field

from agents.chat import run_turn
from agents.models import Mode, Turn, TurnStatus
from agents.selectors import (
    ConversationNotFound,
    conversation_get_for_owner,
    trace_steps,
    turn_report,
)
from agents.services import MAX_QUESTION_CHARS, InvalidQuestion, TooManyQuestions, turn_ask
from agents.tools.definitions import WORKSPACE_FIELD
from agents.tools.errors import ToolError
from agents.tools.registry import Tool, ToolContext, register
from workspaces.models import Role
from workspaces.tenancy import workspace_scope


class AskInput(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    workspace: str | None = WORKSPACE_FIELD
    question: str = Field(
        description="The question, in the user's words (French or English).",
        max_length=MAX_QUESTION_CHARS,
    )
    mode: Mode = Field(
        default=Mode.ANSWER,
        description="answer: an answer citing the documents; retrieval_only: what the "
        "searches found, no generated text; direct: the model alone, unsourced.",
    )
    conversation_id: int | None = Field(
        default=None, description="Continue one of your conversations (conversation_id)."
    )


class Citation(BaseModel):
    model_config = ConfigDict(extra="forbid")
    n: int
    contract_id: str
    title: str
    heading: str | None
    page: int | None
    chunk_id: int | None
    url: str = Field(description="The document viewer at the cited article.")


class ApprovalNeeded(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tool: str
    arguments: dict[str, Any]
    url: str = Field(description="Approve or refuse the call on this page.")


class AskTrace(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model_calls: int
    tool_calls: int
    models: list[str]
    tokens_in: int
    tokens_out: int
    duration_ms: float
    cost: float | None = Field(description="From LEXROOM_LLM_PRICES; null without a price.")
    currency: str


class AskResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    workspace: str
    conversation_id: int
    turn_id: int
    status: str = Field(description="done, awaiting_approval or failed.")
    mode: str
    answer: str | None = Field(description="Citations substituted as [contract — heading — p.].")
    citations: list[Citation]
    confidence: str | None = Field(description="high, medium or abstain; null: retrieval_only.")
    missing: str | None = Field(description="With abstain: what information is missing.")
    escalate_to: str | None = Field(description="With abstain: whom to ask.")
    unsourced: bool = Field(description="direct mode: from the model alone, no document.")
    approval_needed: ApprovalNeeded | None
    error: str | None
    trace: AskTrace
    trace_url: str


def ask_result(turn: Turn) -> AskResult:
    """A turn as the tool, the command and the REST API report it."""
    slug = turn.workspace.slug
    with workspace_scope(turn.workspace):
        report = turn_report(turn=turn, steps=trace_steps(turn=turn))
    answer = turn.answer or {}
    pending = (
        (turn.state or {}).get("pending") if turn.status == TurnStatus.AWAITING_APPROVAL else None
    )
    conversation_url = reverse("chat_conversation", args=[slug, turn.conversation_id])
    return AskResult(
        workspace=slug,
        conversation_id=turn.conversation_id,
        turn_id=turn.pk,
        status=turn.status,
        mode=turn.mode,
        answer=answer.get("answer"),
        citations=[
            Citation(**{key: c.get(key) for key in Citation.model_fields})
            for c in answer.get("citations", [])
        ],
        confidence=answer.get("confidence"),
        missing=answer.get("missing"),
        escalate_to=answer.get("escalate_to"),
        unsourced=bool(answer.get("unsourced")),
        approval_needed=ApprovalNeeded(
            tool=str(pending["name"]),
            arguments=pending.get("arguments") or {},
            url=conversation_url,
        )
        if pending
        else None,
        error=turn.error or None,
        trace=AskTrace(**report),
        trace_url=reverse("chat_trace", args=[slug, turn.pk]),
    )


def _ask(context: ToolContext, arguments: AskInput) -> dict[str, Any]:
    assert context.workspace is not None  # noqa: S101 - needs_workspace
    workspace = context.workspace
    conversation = None
    if arguments.conversation_id is not None:
        try:
            with workspace_scope(workspace):
                conversation = conversation_get_for_owner(
                    user=context.user,
                    workspace=workspace,
                    conversation_id=arguments.conversation_id,
                )
        except ConversationNotFound:
            message = gettext("You have no conversation %(id)d in this workspace.")
            raise ToolError(
                "not_found",
                message % {"id": arguments.conversation_id},
                {"field": "conversation_id"},
            ) from None
    try:
        turn = turn_ask(
            workspace=workspace,
            user=context.user,
            question=arguments.question,
            mode=arguments.mode,
            conversation=conversation,
        )
    except TooManyQuestions as exc:
        raise ToolError("rate_limited", str(exc), retry_after=60.0) from None
    except InvalidQuestion as exc:
        raise ToolError("invalid_arguments", str(exc), {"field": "question"}) from None
    run_turn(turn, user=context.user, token=context.token)
    return ask_result(turn).model_dump(mode="json")


# ``ask`` follows the workspace's tools in the tool list, as it always has: importing them
# (WORKSPACE_FIELD) registered them; the case law's, the playbooks' and the codes' come after,
# registered on first use (docs/reference/tools.md, checked by tests/test_docs.py, pins it).
register(
    Tool(
        name="ask",
        description="Ask the firm's local LLM agent a question about a workspace. It searches "
        "the documents itself and answers with citations checked against the stored text "
        "(contract, article, page, link), or abstains saying what is missing and whom to ask. "
        "Slow (model calls): seconds to minutes. A call that would change data waits for "
        "the user's approval on the chat page (approval_needed).",
        input_model=AskInput,
        output_model=AskResult,
        handler=_ask,
        min_role=Role.VIEWER,
        own_scopes=True,
    )
)
