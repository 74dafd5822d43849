"""Writes of the agent: conversations, turns, their trace, and the user's approval of a call.

Each write opens the workspace's tenant scope itself: the agent runs outside the request's
transaction (a model call can take a minute; no transaction is held open for it).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext

from agents.models import Conversation, Mode, TraceStep, Turn, TurnStatus
from workspaces.audit import audit_record
from workspaces.models import User, Workspace
from workspaces.tenancy import workspace_scope

MAX_QUESTION_CHARS = 2000
TITLE_CHARS = 120


class InvalidQuestion(ValueError):
    """A question the agent cannot take; the message says why, in the user's language."""


class TooManyQuestions(InvalidQuestion):
    """Past LEXROOM_AGENT_QUESTIONS_PER_MINUTE for this member."""


def _check_rate(*, workspace: Workspace, user: User) -> None:
    limit = settings.LEXROOM_AGENT_QUESTIONS_PER_MINUTE
    if not limit:
        return
    now = timezone.now()
    # Per member, in this workspace (the scope shows its turns only).
    mine = Turn.objects.filter(conversation__user=user)
    if mine.filter(created_at__gte=now - timedelta(minutes=1)).count() >= limit:
        raise TooManyQuestions(
            gettext("Too many questions (at most %(limit)d a minute): wait a moment.")
            % {"limit": limit}
        )
    running = mine.filter(
        status__in=(TurnStatus.PENDING, TurnStatus.RUNNING), created_at__gte=now - stale_after()
    ).count()
    if running >= settings.LEXROOM_AGENT_CONCURRENT_QUESTIONS:
        raise TooManyQuestions(
            gettext("%(count)d of your questions are still being answered: wait for one to finish.")
            % {"count": running}
        )


def _storable(value: Any) -> Any:
    """``value`` without U+0000, which Postgres refuses in text and jsonb: a model may write
    one, and the turn must still be stored (failed or answered), never left running."""
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {_storable(key): _storable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_storable(item) for item in value]
    return value


def _clean(question: str) -> str:
    text = " ".join(_storable(str(question)).split())
    if not text:
        raise InvalidQuestion(gettext("Ask a question."))
    if len(text) > MAX_QUESTION_CHARS:
        raise InvalidQuestion(
            gettext("A question holds at most %(limit)d characters.")
            % {"limit": MAX_QUESTION_CHARS}
        )
    return text


def _mode(mode: str) -> str:
    if mode not in Mode.values:
        raise InvalidQuestion(
            gettext("Unknown mode %(mode)r: use %(allowed)s.")
            % {"mode": mode, "allowed": ", ".join(Mode.values)}
        )
    return mode


def turn_ask(
    *,
    workspace: Workspace,
    user: User,
    question: str,
    mode: str = Mode.ANSWER,
    conversation: Conversation | None = None,
) -> Turn:
    """A new question, in ``conversation`` (the user's own) or a new one titled after it."""
    text, mode = _clean(question), _mode(mode)
    with workspace_scope(workspace):
        _check_rate(workspace=workspace, user=user)
        if conversation is None:
            conversation = Conversation.objects.create(
                workspace=workspace, user=user, title=text[:TITLE_CHARS]
            )
        else:
            Conversation.objects.filter(pk=conversation.pk).update(updated_at=timezone.now())
        return Turn.objects.create(
            workspace=workspace, conversation=conversation, question=text, mode=mode
        )


def stale_after() -> timedelta:
    """How long a run may go without a step before it counts as dead (its process crashed):
    longer than the slowest run the settings allow."""
    seconds = settings.LEXROOM_LLM_TIMEOUT * (settings.LEXROOM_AGENT_MAX_STEPS + 4)
    return timedelta(seconds=seconds)


def _last_activity(turn_id: int, created_at: datetime) -> datetime:
    last = TraceStep.objects.filter(turn_id=turn_id).aggregate(last=Max("created_at"))["last"]
    return max(last or created_at, created_at)


def turn_claim(*, turn: Turn, statuses: tuple[str, ...]) -> bool:
    """Mark the turn running if it is in one of ``statuses`` (or running with no step for
    longer than :func:`stale_after`: its process died): only one run at a time. The claimed
    turn's state is read again: ``turn`` may have been loaded before another run paused it
    and the user decided (its state then holds the messages and the decision)."""
    with workspace_scope(turn.workspace):
        row = Turn.objects.select_for_update().filter(pk=turn.pk).first()
        stale = (
            row is not None
            and row.status == TurnStatus.RUNNING
            and timezone.now() - _last_activity(row.pk, row.created_at) > stale_after()
        )
        if row is None or (row.status not in statuses and not stale):
            return False
        Turn.objects.filter(pk=turn.pk).update(status=TurnStatus.RUNNING)
        turn.state, turn.status = row.state, TurnStatus.RUNNING
    return True


def turn_runnable(turn: Turn) -> bool:
    """Waiting for a run, or left running by a run that died."""
    if turn.status == TurnStatus.PENDING:
        return True
    if turn.status != TurnStatus.RUNNING:
        return False
    with workspace_scope(turn.workspace):
        return timezone.now() - _last_activity(turn.pk, turn.created_at) > stale_after()


def trace_next_position(turn: Turn) -> int:
    """The last position written (a run that died may have written past its saved state)."""
    with workspace_scope(turn.workspace):
        last = TraceStep.objects.filter(turn=turn).aggregate(last=Max("position"))["last"]
    return int(last or 0)


def turn_save(turn: Turn, **fields: Any) -> None:
    """Store the turn's progress (status, answer, error, state); a final status dates it."""
    if fields.get("status") in {TurnStatus.DONE, TurnStatus.FAILED}:
        fields["finished_at"] = timezone.now()
    fields = {name: _storable(value) for name, value in fields.items()}
    for name, value in fields.items():
        setattr(turn, name, value)
    with workspace_scope(turn.workspace):
        Turn.objects.filter(pk=turn.pk).update(**fields)


def trace_add(turn: Turn, *, position: int, kind: str, name: str, **fields: Any) -> TraceStep:
    with workspace_scope(turn.workspace):
        return TraceStep.objects.create(
            workspace=turn.workspace,
            turn=turn,
            position=position,
            kind=kind,
            name=_storable(name),
            **{key: _storable(value) for key, value in fields.items()},
        )


class NotAwaitingApproval(ValueError):
    pass


@transaction.atomic
def turn_decide(*, turn: Turn, user: User, approve: bool) -> None:
    """Record the user's answer to the call the turn waits on; the next run resumes with it.
    Audited: who let the agent change data, or refused it."""
    with workspace_scope(turn.workspace):
        locked = Turn.objects.select_for_update().get(pk=turn.pk)
        pending = locked.state.get("pending")
        if locked.status != TurnStatus.AWAITING_APPROVAL or not pending:
            raise NotAwaitingApproval(gettext("This question is not waiting for an approval."))
        state = {**locked.state, "decision": "approved" if approve else "refused"}
        Turn.objects.filter(pk=turn.pk).update(state=state, status=TurnStatus.PENDING)
        turn.state, turn.status = state, TurnStatus.PENDING
        audit_record(
            firm=turn.workspace.firm,
            workspace=turn.workspace,
            actor=user,
            action="agent.approve" if approve else "agent.refuse",
            target=str(pending.get("name", ""))[:200],
            details={"turn": turn.pk, "argument_names": sorted(pending.get("arguments", {}))},
        )
