"""Reads of the agent's tables: a member's own conversations and turns, and the stored text
the agent's citations point at. Callers run inside a tenant scope that covers the workspace;
the owner is part of every lookup, so a colleague's conversation is as missing as none."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.http import Http404
from django.utils.translation import gettext

from agents.llm import cost_of
from agents.models import Conversation, TraceStep, Turn
from documents.models import Chunk, Document
from workspaces.models import Firm, Membership, Role, User, Workspace


class ConversationNotFound(Http404):
    """Missing, another member's and another workspace's read the same."""

    def __init__(self) -> None:
        super().__init__(gettext("No such conversation."))


def conversation_list_for_user(*, user: User, workspace: Workspace) -> QuerySet[Conversation]:
    return Conversation.objects.filter(workspace=workspace, user=user).order_by(
        "-updated_at", "-pk"
    )


def conversation_get_for_owner(
    *, user: User, workspace: Workspace, conversation_id: int
) -> Conversation:
    try:
        return Conversation.objects.get(pk=conversation_id, workspace=workspace, user=user)
    except Conversation.DoesNotExist:
        raise ConversationNotFound from None


def turn_get_for_owner(*, user: User, workspace: Workspace, turn_id: int) -> Turn:
    try:
        return Turn.objects.select_related("conversation").get(
            pk=turn_id, workspace=workspace, conversation__user=user
        )
    except Turn.DoesNotExist:
        raise ConversationNotFound from None


def turn_history(*, turn: Turn, limit: int) -> list[Turn]:
    """The conversation's answered turns before ``turn``, oldest first (at most ``limit``)."""
    earlier = (
        Turn.objects.filter(conversation_id=turn.conversation_id, pk__lt=turn.pk)
        .exclude(answer=None)
        .order_by("-pk")[:limit]
    )
    return list(reversed(earlier))


def trace_steps(*, turn: Turn) -> list[TraceStep]:
    return list(TraceStep.objects.filter(turn=turn).order_by("position"))


def cited_texts(
    *, workspace: Workspace, chunk_ids: list[int], contract_ids: list[str]
) -> list[str]:
    """The stored text of the cited articles, and of every article of the cited contracts."""
    chunks = Chunk.objects.filter(workspace=workspace)
    by_chunk = list(chunks.filter(pk__in=chunk_ids).values_list("text", flat=True))
    by_contract = list(chunks.filter(document__ref__in=contract_ids).values_list("text", flat=True))
    return by_chunk + by_contract


def existing_citations(
    *, workspace: Workspace, chunk_ids: list[int], contract_ids: list[str]
) -> tuple[set[int], set[str]]:
    """Which of the cited articles and contracts exist in the workspace now."""
    chunks = set(
        Chunk.objects.filter(workspace=workspace, pk__in=chunk_ids).values_list("pk", flat=True)
    )
    documents = set(
        Document.objects.filter(workspace=workspace, ref__in=contract_ids).values_list(
            "ref", flat=True
        )
    )
    return chunks, documents


def workspace_owner_names(*, workspace: Workspace) -> list[str]:
    """Who to escalate to: the workspace's owners, by name (else email)."""
    owners = Membership.objects.filter(workspace=workspace, role=Role.OWNER).select_related("user")
    return [m.user.get_full_name() or m.user.email for m in owners.order_by("user__email")]


def external_sites_allowed(*, workspace: Workspace) -> bool:
    """Whether the workspace's firm lets the agent query public sites (the case law)."""
    allowed = (
        Firm.objects.filter(pk=workspace.firm_id)
        .values_list("agent_external_sites", flat=True)
        .first()
    )
    return bool(allowed)  # a firm that cannot be read: nothing leaves


def turn_report(*, turn: Turn, steps: list[TraceStep]) -> dict[str, Any]:
    """Totals of a turn's trace: model and tool calls, tokens, time and cost (when every
    model call has a price; otherwise none is shown rather than a part of it)."""
    model_steps = [step for step in steps if step.kind == "model"]
    costs = [cost_of(s.name, s.tokens_in, s.tokens_out) for s in model_steps]
    return {
        "model_calls": len(model_steps),
        "tool_calls": sum(step.kind == "tool" for step in steps),
        "models": sorted({step.name for step in model_steps}),
        "tokens_in": sum(step.tokens_in or 0 for step in model_steps),
        "tokens_out": sum(step.tokens_out or 0 for step in model_steps),
        "duration_ms": round(sum(step.duration_ms for step in steps), 1),
        "cost": round(sum(c for c in costs if c is not None), 6)
        if costs and all(c is not None for c in costs)
        else None,
        "currency": settings.LEXROOM_LLM_PRICE_CURRENCY,
    }
