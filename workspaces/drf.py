"""The base of every REST view on tenant data, and the refusals its OpenAPI declares."""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any, cast

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.views import APIView

from workspaces.authentication import request_token
from workspaces.credentials import acting_token
from workspaces.middleware import activate_for
from workspaces.models import User
from workspaces.tenancy import user_scope

REFUSALS = {
    400: "Bad input: a malformed body, arguments the operation refuses.",
    401: "No credential, or a dead one (unknown, expired or revoked token).",
    403: "A role too low, a read-only token asked to write, or a session without its CSRF token.",
    404: "No such object, or one the caller may not see (the same answer). As text/html: "
    "Django's page for a path that matches no route (a slug with a character no slug holds).",
    429: "Too many calls: retry after the Retry-After header's seconds.",
    503: "A service the operation needs is unavailable (a public source's site, the model).",
}


class ErrorSerializer(serializers.Serializer[Any]):
    """A refusal: DRF's ``detail``, or a tool's ``error`` kind and its ``message``."""

    detail = serializers.CharField(required=False)
    error = serializers.CharField(required=False)
    message = serializers.CharField(required=False)


class ScopedSchema(AutoSchema):
    """The OpenAPI of a :class:`ScopedAPIView`: its own answers and the refusals every such
    view gives (401; 404 when the path names an object; 400 and 403 on a write), plus
    ``extra_refusals``. Without them a client reading the schema (or schemathesis) meets
    statuses it was never told of."""

    extra_refusals: tuple[int, ...] = ()

    # get_operation, not get_response_serializers: @extend_schema(responses=…) replaces the
    # latter on each view, and the refusals are the same whatever a view answers itself.
    def get_operation(self, *args: Any, **kwargs: Any) -> Any:
        operation = super().get_operation(*args, **kwargs)
        if operation is not None:
            responses = operation.setdefault("responses", {})
            for code, content in self.refusals().items():
                responses.setdefault(str(code), {"description": REFUSALS[code], "content": content})
        return operation

    def refusals(self) -> dict[int, dict[str, Any]]:
        """Each refusal status of this operation, with the error body it carries."""
        codes = {401, *self.extra_refusals}
        if "{" in self.path:
            codes.add(404)
        if self.method == "POST":
            codes |= {400, 403}
        error = {"schema": self.resolve_serializer(ErrorSerializer(), "response").ref}
        refusals: dict[int, dict[str, Any]] = {
            code: {"application/json": error} for code in sorted(codes)
        }
        if 404 in refusals:
            refusals[404]["text/html"] = {"schema": {"type": "string"}}
        return refusals


class ScopedAPIView(APIView):
    """A REST view on tenant data: DRF authenticates (token or session), then the handler
    runs inside the caller's tenant scope, narrowed to the token's workspaces, with the token
    marked as the acting credential for audit rows.

    ``writes_data``: see :class:`workspaces.authentication.TokenPermissions`.
    """

    writes_data: bool | None = None
    schema = ScopedSchema()
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
