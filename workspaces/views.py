"""HTML pages of the tenancy app: the user's personal access tokens and the language switch of
the top bar (home and the workspace dashboard read documents: they live in documents.views)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import cast

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from workspaces.forms import LanguageForm, TokenCreateForm
from workspaces.models import PersonalToken, User
from workspaces.selectors import (
    token_list_for_user,
)
from workspaces.services import TenancyError, user_language_set
from workspaces.tokens import token_create, token_revoke


def _user(request: HttpRequest) -> User:
    # login_required guarantees a real user; the cast is for the type checker.
    return cast(User, request.user)


# --- Personal access tokens ----------------------------------------------------------------


@dataclass(frozen=True)
class NewToken:
    """A token just created: its plaintext is on this one response, never stored or shown again."""

    token: PersonalToken
    raw: str
    claude_code: str
    cursor_json: str
    claude_desktop_json: str


def mcp_client_snippets(*, mcp_url: str, raw: str) -> dict[str, str]:
    """Ready-to-paste MCP client settings for this server's ``/mcp`` and a token.

    Syntax checked on 2026-11-30 (no Claude client or Cursor on this machine to run them);
    the pages read quote the vendors' documentation:
    - Claude Code: ``claude mcp add --transport http <name> <url> --header "Authorization:
      Bearer …"`` (Anthropic's "Connect Claude Code to tools via MCP", as quoted by
      theclaudedojo.com/reference/tools/mcp-servers and hivebook.wiki's MCP client setup).
    - Cursor: ``mcpServers.<name>`` with ``url`` and ``headers`` in ``~/.cursor/mcp.json`` or
      ``.cursor/mcp.json`` (cursor.com/docs/mcp, as quoted by developer.mescius.com's Cursor
      page and docs.apilayer.com's Cursor integration).
    - Claude Desktop: ``claude_desktop_config.json`` starts stdio servers only (a ``url``
      entry is dropped; remote servers otherwise go through Settings > Connectors), so HTTP
      goes through the ``mcp-remote`` bridge with ``--header`` (startdebugging.net, "HTTP MCP
      server URL won't connect in Claude Desktop", 2026-05). The header's value sits in
      ``env``: some launchers split arguments on spaces (mcp-remote's README).
    """
    authorization = f"Bearer {raw}"
    headers = {"Authorization": authorization}
    cursor = {"mcpServers": {"lexroom": {"url": mcp_url, "headers": headers}}}
    desktop = {
        "mcpServers": {
            "lexroom": {
                "command": "npx",
                "args": ["-y", "mcp-remote", mcp_url, "--header", "Authorization:${LEXROOM_AUTH}"],
                "env": {"LEXROOM_AUTH": authorization},
            }
        }
    }
    return {
        "claude_code": (
            f"claude mcp add --transport http lexroom {mcp_url} "
            f'--header "Authorization: {authorization}"'
        ),
        "cursor_json": json.dumps(cursor, indent=2),
        "claude_desktop_json": json.dumps(desktop, indent=2),
    }


@never_cache  # the response may hold a new token's plaintext
@require_http_methods(["GET", "POST"])
@login_required
def tokens(request: HttpRequest) -> HttpResponse:
    """The user's own tokens; a POST creates one and shows it once, on its response only.

    Not a redirect after the POST: that would need the plaintext kept somewhere until the
    next request (the session table), and only the token's hash is ever stored.
    """
    user = _user(request)
    created: NewToken | None = None
    form = TokenCreateForm(request.POST if request.method == "POST" else None, user=user)
    if form.is_valid():
        try:
            token, raw = token_create(
                user=user,
                name=form.cleaned_data["name"],
                workspaces=list(form.cleaned_data["workspaces"]),
                expires_days=form.cleaned_data["expires_days"],
                read_only=form.cleaned_data["read_only"],
            )
        except TenancyError as refused:
            form.add_error(None, str(refused))
        else:
            snippets = mcp_client_snippets(mcp_url=request.build_absolute_uri("/mcp"), raw=raw)
            created = NewToken(token=token, raw=raw, **snippets)
            form = TokenCreateForm(user=user)  # a blank form for the next one
    context = {
        "form": form,
        "tokens": token_list_for_user(user=user),
        "created": created,
        "now": timezone.now(),
    }
    status = 400 if form.is_bound and form.errors else 200
    return render(request, "workspaces/tokens.html", context, status=status)


@require_http_methods(["GET", "POST"])
@login_required
def token_revoke_page(request: HttpRequest, token_id: int) -> HttpResponse:
    """Confirm (GET), then revoke (POST) one of the user's own tokens; anyone else's: 404."""
    user = _user(request)
    token = get_object_or_404(token_list_for_user(user=user), pk=token_id)
    if request.method == "POST":
        token_revoke(token=token, actor=user)
        messages.success(request, gettext("Token “%(name)s” revoked.") % {"name": token.name})
        return redirect("tokens")
    return render(request, "workspaces/token_revoke.html", {"token": token})


# --- Language ------------------------------------------------------------------------------


@require_POST
def language_switch(request: HttpRequest) -> HttpResponse:
    """Switch the page language, then go back to ``next`` (this site only, else home).

    A signed-in user's choice is saved on their account (it then follows them to every
    device, the API and e-mails); the cookie also keeps it for the login page.
    """
    next_url = request.POST.get("next", "")
    safe = url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    response = redirect(next_url if safe and next_url else reverse("home"))
    form = LanguageForm(request.POST)
    if form.is_valid():
        language = form.cleaned_data["language"]
        user = request.user
        if isinstance(user, User) and user.is_authenticated:
            user_language_set(user=user, language=language)
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            language,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            path=settings.LANGUAGE_COOKIE_PATH,
            domain=settings.LANGUAGE_COOKIE_DOMAIN,
            secure=settings.LANGUAGE_COOKIE_SECURE,
            httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )
    return response
