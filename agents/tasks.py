"""The worker answers a question asked without JavaScript (or after an approval given so).

Unlike other tasks this one does not run inside its workspace's scope: the agent opens a
scope for each of its steps, so no transaction is held open during minutes of model calls.
"""

from __future__ import annotations

from django.utils import translation

from agents.models import Turn
from workspaces.models import User, Workspace
from workspaces.tasks import enqueue
from workspaces.tenancy import workspace_scope


def turn_run_later(*, turn: Turn, user: User, language: str) -> None:
    """Queue the turn's run once the current transaction has committed."""
    enqueue(
        turn_run,
        workspace_id=turn.workspace_id,
        scoped=False,
        task_name=f"agent-turn-{turn.pk}",
        turn_id=turn.pk,
        user_id=user.pk,
        language=language,
    )


def turn_run(*, workspace_id: int, turn_id: int, user_id: int, language: str) -> str:
    from agents.chat import run_turn

    workspace = Workspace.objects.get(pk=workspace_id)
    user = User.objects.get(pk=user_id, is_active=True)
    with workspace_scope(workspace):
        turn = Turn.objects.select_related("conversation").get(pk=turn_id, conversation__user=user)
    with translation.override(language):
        run_turn(turn, user=user)
    return turn.status
