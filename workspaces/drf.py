"""The base of every REST view on tenant data."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any, cast

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from rest_framework.request import Request
from rest_framework.views import APIView

from workspaces.authentication import request_token
from workspaces.credentials import acting_token
from workspaces.middleware import activate_for
from workspaces.models import User
from workspaces.tenancy import user_scope


class ScopedAPIView(APIView):
    """A REST view on tenant data: DRF authenticates (token or session), then the handler
    runs inside the caller's tenant scope, narrowed to the token's workspaces, with the token
    marked as the acting credential for audit rows.

    ``writes_data``: see :class:`workspaces.authentication.TokenPermissions`.
    """

    writes_data: bool | None = None
    _tenant_stack: ExitStack

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        # The scope opens in initial() (after authentication) and closes here, after the
        # handler and DRF's exception handling (which marks a failed request for rollback).
        with ExitStack() as stack:
            self._tenant_stack = stack
            return super().dispatch(request, *args, **kwargs)

    def perform_authentication(self, request: Request) -> None:
        super().perform_authentication(request)
        # The caller is known from here on: permission and throttle refusals, validation
        # errors and the handler's messages are in their language.
        activate_for(request.user)

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        token = request_token(request)
        self._tenant_stack.enter_context(acting_token(token))
        if not self.opens_scope(**kwargs):
            return
        only = token.restricted_to if token is not None else None
        self._tenant_stack.enter_context(user_scope(cast(User, request.user), only=only))

    def opens_scope(self, **kwargs: Any) -> bool:
        """False for a handler that opens its own scopes (no transaction held for it)."""
        return True
