"""The agents app's pages: the model status, and the chat: a member's conversations with the
agent in one workspace, each answer streamed as server-sent events, the approval of calls
that change data, and the trace.

Without JavaScript a question is answered by the worker (django-q) and the page refreshes
until it is there; with it, htmx posts the question and ``lexroom.js`` follows the events.
"""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseRedirect,
    StreamingHttpResponse,
)
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape
from django.views.decorators.http import require_GET, require_POST

from agents import events
from agents.models import Conversation, Mode, Turn, TurnStatus
from agents.selectors import (
    conversation_get_for_owner,
    conversation_list_for_user,
    external_sites_allowed,
    trace_steps,
    turn_get_for_owner,
    turn_report,
)
from agents.services import (
    InvalidQuestion,
    NotAwaitingApproval,
    TooManyQuestions,
    turn_ask,
    turn_decide,
)
from agents.status import llm_status, model_answers
from agents.streams import TooManyStreams, stream_slots_take
from agents.tasks import turn_run_later
from core.http import retry_after
from workspaces.models import User, Workspace
from workspaces.selectors import workspace_get_for_member
from workspaces.tenancy import workspace_scope

ACTIVE = (TurnStatus.PENDING, TurnStatus.RUNNING)


def _context(request: HttpRequest, slug: str) -> tuple[User, Workspace]:
    user = cast(User, request.user)
    return user, workspace_get_for_member(user=user, slug=slug)


def _page(
    request: HttpRequest,
    workspace: Workspace,
    user: User,
    conversation: Conversation | None,
    *,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    turns = list(conversation.turns.all()) if conversation is not None else []
    context: dict[str, Any] = {
        "workspace": workspace,
        "conversations": conversation_list_for_user(user=user, workspace=workspace)[:50],
        "conversation": conversation,
        "turns": turns,
        "modes": Mode.choices,
        "error": error,
        "refresh": any(turn.status in ACTIVE for turn in turns),
        "external_sites": _external_sites(workspace),
        "no_model": not model_answers(),
    }
    return render(request, "agents/chat.html", context, status=status)


def _external_sites(workspace: Workspace) -> bool:
    with workspace_scope(workspace):
        return external_sites_allowed(workspace=workspace)


@login_required
def chat(request: HttpRequest, slug: str) -> HttpResponse:
    user, workspace = _context(request, slug)
    return _page(request, workspace, user, None)


@login_required
def chat_conversation(request: HttpRequest, slug: str, conversation_id: int) -> HttpResponse:
    user, workspace = _context(request, slug)
    conversation = conversation_get_for_owner(
        user=user, workspace=workspace, conversation_id=conversation_id
    )
    return _page(request, workspace, user, conversation)


def _turn_fragment(request: HttpRequest, workspace: Workspace, turn: Turn) -> HttpResponse:
    return render(request, "agents/chat.html#turn", {"workspace": workspace, "turn": turn})


@login_required
@require_POST
def chat_ask(request: HttpRequest, slug: str) -> HttpResponse:
    """A question: htmx gets the new turn (its events follow), a plain form the
    conversation page, the worker answering meanwhile."""
    user, workspace = _context(request, slug)
    conversation = None
    raw_id = request.POST.get("conversation", "").strip()
    if raw_id:
        if not raw_id.isascii() or not raw_id.isdigit() or len(raw_id) > 18:
            return HttpResponseBadRequest("conversation")
        conversation = conversation_get_for_owner(
            user=user, workspace=workspace, conversation_id=int(raw_id)
        )
    try:
        turn = turn_ask(
            workspace=workspace,
            user=user,
            question=request.POST.get("question", ""),
            mode=request.POST.get("mode", Mode.ANSWER) or Mode.ANSWER,
            conversation=conversation,
        )
    except InvalidQuestion as exc:
        if request.htmx:  # type: ignore[attr-defined]
            # htmx puts it in the page as HTML: the message may repeat what was sent.
            response = HttpResponse(escape(str(exc)), content_type="text/html; charset=utf-8")
            response["HX-Retarget"], response["HX-Reswap"] = "#ask-error", "innerHTML"
            return response
        status = 429 if isinstance(exc, TooManyQuestions) else 400
        return _page(request, workspace, user, conversation, error=str(exc), status=status)
    if request.htmx:  # type: ignore[attr-defined]
        response = _turn_fragment(request, workspace, turn)
        if conversation is None:  # a new conversation: the browser goes to its address
            response["HX-Redirect"] = _conversation_url(turn)
        return response
    turn_run_later(turn=turn, user=user, language=translation.get_language())
    return HttpResponseRedirect(_conversation_url(turn))


def _conversation_url(turn: Turn) -> str:
    url = reverse("chat_conversation", args=[turn.workspace.slug, turn.conversation_id])
    return f"{url}#turn-{turn.pk}"


@login_required
def chat_turn(request: HttpRequest, slug: str, turn_id: int) -> HttpResponse:
    """One turn: the fragment for htmx, else its place in the conversation."""
    user, workspace = _context(request, slug)
    turn = turn_get_for_owner(user=user, workspace=workspace, turn_id=turn_id)
    if request.htmx:  # type: ignore[attr-defined]
        return _turn_fragment(request, workspace, turn)
    return HttpResponseRedirect(_conversation_url(turn))


@login_required
def chat_events(
    request: HttpRequest, slug: str, turn_id: int
) -> HttpResponse | StreamingHttpResponse:
    """The turn's events (text/event-stream): live while it runs, replayed once it ran.
    Past the user's or the firm's open streams (``agents.streams``): 429 and Retry-After."""
    user, workspace = _context(request, slug)
    turn = turn_get_for_owner(user=user, workspace=workspace, turn_id=turn_id)
    try:
        slots = stream_slots_take(user_id=user.pk, firm_id=user.firm_id)
    except TooManyStreams as exc:
        refused = HttpResponse(exc.message, status=429, content_type="text/plain; charset=utf-8")
        refused["Retry-After"] = retry_after(exc.retry_after)
        return refused
    stream = events.stream(request, turn=turn, user=user, slots=slots)
    response = StreamingHttpResponse(stream, content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    return response


@login_required
@require_POST
def chat_decide(request: HttpRequest, slug: str, turn_id: int) -> HttpResponse:
    """Approve (``approve=1``) or refuse (``approve=0``) the call a turn waits on."""
    user, workspace = _context(request, slug)
    turn = turn_get_for_owner(user=user, workspace=workspace, turn_id=turn_id)
    choice = request.POST.get("approve", "")
    if choice not in {"0", "1"}:
        return HttpResponseBadRequest("approve must be 1 or 0.")
    try:
        turn_decide(turn=turn, user=user, approve=choice == "1")
    except NotAwaitingApproval as exc:
        return HttpResponse(str(exc), status=409, content_type="text/plain; charset=utf-8")
    if request.htmx:  # type: ignore[attr-defined]
        return _turn_fragment(request, workspace, turn)
    turn_run_later(turn=turn, user=user, language=translation.get_language())
    return HttpResponseRedirect(_conversation_url(turn))


@login_required
def chat_trace(request: HttpRequest, slug: str, turn_id: int) -> HttpResponse:
    user, workspace = _context(request, slug)
    turn = turn_get_for_owner(user=user, workspace=workspace, turn_id=turn_id)
    steps = trace_steps(turn=turn)
    context = {
        "workspace": workspace,
        "turn": turn,
        "steps": steps,
        "report": turn_report(turn=turn, steps=steps),
        "sources": (turn.state or {}).get("book", {}).get("sources", []),
    }
    return render(request, "agents/trace.html", context)


@require_GET
@login_required
def llm_status_page(request: HttpRequest) -> HttpResponse:
    """Ollama and the embedding models as this server sees them, for firm admins (those who
    run the install's models, as in the admin): model names and the server's address without
    its credentials, nothing of any workspace. Anyone else: 403, and Ollama is not asked.
    Otherwise always a 200: a model that is down is what the page is there to say."""
    if not cast(User, request.user).is_staff:
        raise PermissionDenied
    return render(request, "agents/llm_status.html", {"status": llm_status()})
