"""How each surface authenticates. Sessions for pages, tokens for the API and MCP only.

- Pages, forms and ``/admin/``: Django's session (with CSRF). A bearer header there is never
  read: the request is anonymous unless it carries a session.
- ``/api/…`` (DRF): two separate authentication classes, :class:`BearerTokenAuthentication`
  and DRF's ``SessionAuthentication`` (which enforces CSRF on writes).
- ``/mcp`` and stdio MCP: the personal token, checked by ``agents.mcp``.

:class:`TokenPermissions` makes read-only tokens read-only on every REST endpoint.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.permissions import SAFE_METHODS, IsAuthenticated
from rest_framework.request import Request

from workspaces.models import PersonalToken
from workspaces.tokens import token_authenticate

if TYPE_CHECKING:
    from rest_framework.views import APIView

BEARER_REALM = 'Bearer realm="lexroom"'


def bearer_value(header: str) -> str | None:
    """The credential of an ``Authorization: Bearer …`` header, else None."""
    scheme, _sep, value = header.partition(" ")
    return value.strip() if scheme.lower() == "bearer" and value.strip() else None


class BearerTokenAuthentication(BaseAuthentication):
    """A personal access token (``Authorization: Bearer lxr_…``) on the REST API."""

    def authenticate(self, request: Request) -> tuple[Any, PersonalToken] | None:
        header = get_authorization_header(request).decode("latin-1")
        raw = bearer_value(header)
        if raw is None:
            return None
        token = token_authenticate(raw, client=request.META.get("REMOTE_ADDR", ""))
        if token is None:
            raise AuthenticationFailed(_("Invalid, expired or revoked token."))
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        # Makes DRF answer 401 with a challenge (not 403) to unauthenticated calls.
        return BEARER_REALM


def request_token(request: Request) -> PersonalToken | None:
    """The token the request was authenticated with (None for a session)."""
    return request.auth if isinstance(request.auth, PersonalToken) else None


class TokenPermissions(IsAuthenticated):
    """Signed in, and a read-only token never writes.

    A view whose writes are decided elsewhere (the tool endpoint: the registry knows which
    tools write) sets ``writes_data = False``; otherwise every unsafe method writes.
    """

    # Lazy: a class attribute is read in each request's language, not the one at import.
    message = gettext_lazy("This token is read-only.")

    def has_permission(self, request: Request, view: APIView) -> bool:
        if not super().has_permission(request, view):
            return False
        token = request_token(request)
        if token is None or not token.read_only:
            return True
        writes = getattr(view, "writes_data", None)
        if writes is None:
            writes = request.method not in SAFE_METHODS
        return not writes


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
