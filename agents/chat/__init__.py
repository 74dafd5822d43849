"""The chat agent: a question in a workspace answered from its documents by the firm's LLM,
with citations the code checks (see _loop for the steps, _answer for the checks)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from agents.chat._loop import Emit, drive, new_run, start
from agents.chat._tools import Caller
from agents.models import Turn, TurnStatus
from agents.selectors import external_sites_allowed
from agents.services import turn_claim
from core.llm import ChatModel, chat_model
from workspaces.models import PersonalToken, User
from workspaces.tenancy import workspace_scope

__all__ = ["Emit", "run_turn"]


def _ignore(event: str, data: dict[str, Any]) -> None:
    return


def run_turn(
    turn: Turn,
    *,
    user: User,
    token: PersonalToken | None = None,
    emit: Emit | None = None,
    llm: ChatModel | None = None,
) -> Turn:
    """Answer ``turn`` (a new question, or one resuming after the user's decision) as
    ``user``, through ``token`` when the question came with one. Runs outside any
    transaction: each tool call and each trace step opens its own. Never raises for the
    model's or Ollama's failures: the turn is marked failed with the reason."""
    emit = emit or _ignore
    if not turn_claim(turn=turn, statuses=(TurnStatus.PENDING,)):
        emit("error", {"message": _busy()})
        return turn
    with workspace_scope(turn.workspace):
        external = external_sites_allowed(workspace=turn.workspace)
    caller = Caller(user=user, workspace=turn.workspace, token=token, question=turn.question,
                    external_sites=external)  # fmt: skip
    run = new_run(turn, caller, llm or chat_model(), emit)
    state = dict(turn.state or {})
    decision, pending = state.get("decision"), state.get("pending")
    if not run.messages:
        start(run)
    drive(run, decision=decision, pending=pending)
    return turn


def _busy() -> str:
    return gettext("This question is already being answered, or has been.")
