"""DRF authentication for personal tokens (verified by TenantMiddleware, read back here)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication
from rest_framework.request import Request


class BearerTokenAuthentication(BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        token = getattr(request._request, "auth_token", None)
        if token is None:
            return None
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        # Makes DRF answer 401 with a challenge (not 403) to unauthenticated calls.
        return 'Bearer realm="lexroom"'


class BearerTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    """Tells the OpenAPI schema how personal tokens are sent."""

    target_class = "workspaces.authentication.BearerTokenAuthentication"
    name = "personalToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal access token (lxr_…) from create_token or the admin.",
        }
