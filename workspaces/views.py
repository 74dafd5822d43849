"""HTML pages for workspaces: the list after login, and one workspace's page."""

from __future__ import annotations

from typing import cast

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from workspaces.models import Role, User
from workspaces.selectors import (
    membership_role,
    workspace_get_for_member,
    workspace_list_for_user,
    workspace_members,
)


def _user(request: HttpRequest) -> User:
    # login_required guarantees a real user; the cast is for the type checker.
    return cast(User, request.user)


@login_required
def home(request: HttpRequest) -> HttpResponse:
    user = _user(request)
    workspaces = workspace_list_for_user(user=user)
    return render(request, "workspaces/home.html", {"workspaces": workspaces})


@login_required
def workspace_detail(request: HttpRequest, slug: str) -> HttpResponse:
    user = _user(request)
    workspace = workspace_get_for_member(user=user, slug=slug)
    role = membership_role(user=user, workspace=workspace)
    context = {
        "workspace": workspace,
        "role": Role(role).label if role else "",
        "members": workspace_members(workspace=workspace),
    }
    return render(request, "workspaces/workspace_detail.html", context)
