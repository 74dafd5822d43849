"""Every signed-in request runs inside the user's tenant scope (one transaction).

A request with ``Authorization: Bearer lxr_…`` is authenticated by its personal token here,
so REST calls made with tokens get the same scope (narrowed to the token's workspaces).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse

from workspaces.models import User
from workspaces.tenancy import user_scope
from workspaces.tokens import token_authenticate


def bearer_token(request: HttpRequest) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


def unauthorized(message: str) -> JsonResponse:
    response = JsonResponse({"detail": message}, status=401)
    response["WWW-Authenticate"] = 'Bearer realm="lexroom"'
    return response


class TenantMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        raw = bearer_token(request)
        if raw is not None:
            token = token_authenticate(raw, client=request.META.get("REMOTE_ADDR", ""))
            if token is None:
                return unauthorized("Invalid, expired or revoked token.")
            request.user = token.user
            request.auth_token = token  # type: ignore[attr-defined]
            request._dont_enforce_csrf_checks = True  # type: ignore[attr-defined]
            with user_scope(token.user, only=token.workspace_ids or None):
                return self.get_response(request)
        user = request.user
        if not isinstance(user, User) or not user.is_authenticated:
            return self.get_response(request)
        with user_scope(user):
            return self.get_response(request)
