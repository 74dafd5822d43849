"""Every page request of a signed-in user runs inside the user's tenant scope (one transaction).

Pages, forms and ``/admin/`` authenticate by session only: this middleware never reads an
``Authorization`` header. ``/api/…`` is left to DRF, whose views authenticate (token or
session) and then open the same scope (:class:`workspaces.drf.ScopedAPIView`).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from workspaces.models import User
from workspaces.tenancy import user_scope

API_PREFIX = "/api/"


class TenantMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info.startswith(API_PREFIX):
            return self.get_response(request)
        user = request.user
        if not isinstance(user, User) or not user.is_authenticated:
            return self.get_response(request)
        with user_scope(user):
            return self.get_response(request)
