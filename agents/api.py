"""REST adapter over the tool registry: GET /api/tools, POST /api/tools/<name>."""

from __future__ import annotations

from typing import Any, cast

from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from agents.tools import ToolError, call_tool, tool_definitions
from agents.tools.registry import tool_named
from core.http import retry_after
from workspaces.authentication import request_token
from workspaces.drf import ScopedAPIView, ScopedSchema
from workspaces.models import User

ERROR_STATUS = {
    "invalid_arguments": status.HTTP_400_BAD_REQUEST,
    "unknown_tool": status.HTTP_404_NOT_FOUND,
    "not_found": status.HTTP_404_NOT_FOUND,
    "forbidden": status.HTTP_403_FORBIDDEN,
    "rate_limited": status.HTTP_429_TOO_MANY_REQUESTS,
    "unavailable": status.HTTP_503_SERVICE_UNAVAILABLE,
}


class ToolDefinitionSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    description = serializers.CharField()
    inputSchema = serializers.DictField()
    outputSchema = serializers.DictField()
    annotations = serializers.DictField()


class ToolListApi(ScopedAPIView):
    @extend_schema(responses=ToolDefinitionSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(tool_definitions())


class ToolCallSchema(ScopedSchema):
    """The OpenAPI of POST /api/tools/{name}: the body is the tool's arguments (its
    inputSchema), a 200 is its output model (its outputSchema, the same as over MCP); the
    refusals of ``ERROR_STATUS`` besides the scoped views' own.

    Built when the schema is generated, not at import, from the registry's definitions."""

    extra_refusals = (status.HTTP_429_TOO_MANY_REQUESTS, status.HTTP_503_SERVICE_UNAVAILABLE)

    def get_request_serializer(self) -> Any:
        return {"application/json": self._one_of("inputSchema")}

    def get_response_serializers(self) -> Any:
        description = "The tool's result: the outputSchema of the tool called."
        return {
            200: OpenApiResponse(response=self._one_of("outputSchema"), description=description)
        }

    def get_override_parameters(self) -> list[Any]:
        names = [definition["name"] for definition in tool_definitions()]
        return [OpenApiParameter("name", OpenApiTypes.STR, OpenApiParameter.PATH, enum=names)]

    def _one_of(self, key: str) -> dict[str, Any]:
        # One option per tool, titled by its name (the path parameter says which applies).
        options = [
            {"title": d["name"], **_nullable_as_openapi_30(d[key])} for d in tool_definitions()
        ]
        return {"oneOf": options}


def _nullable_as_openapi_30(node: Any) -> Any:
    """JSON Schema's ``"type": [X, "null"]`` as OpenAPI 3.0 writes it (``nullable``)."""
    if isinstance(node, list):
        return [_nullable_as_openapi_30(item) for item in node]
    if not isinstance(node, dict):
        return node
    result = {key: _nullable_as_openapi_30(value) for key, value in node.items()}
    if isinstance(result.get("type"), list) and "null" in result["type"]:
        [result["type"]] = [t for t in result["type"] if t != "null"]
        result["nullable"] = True
    return result


class ToolCallApi(ScopedAPIView):
    """Call a tool with a JSON object of arguments; the body of the response is its result."""

    # POST for every tool: the registry knows which tools write and refuses those to
    # read-only tokens.
    writes_data = False
    schema = ToolCallSchema()

    def opens_scope(self, **kwargs: Any) -> bool:
        # The agent (``ask``) runs for minutes and opens a scope per step: the request's
        # transaction must not stay open (and its rows locked) around it.
        tool = tool_named(str(kwargs.get("name", "")))
        return tool is None or not tool.own_scopes

    def post(self, request: Request, name: str) -> Response:
        arguments = request.data
        if not isinstance(arguments, dict):
            return Response(
                {
                    "error": "invalid_arguments",
                    "message": gettext("Send a JSON object of arguments."),
                },
                status=status.HTTP_400_BAD_REQUEST,
            )
        try:
            result = call_tool(
                name=name,
                arguments=dict(arguments),
                user=cast(User, request.user),
                token=request_token(request),
                via="rest",
            )
        except ToolError as exc:
            response = Response(exc.as_dict(), status=ERROR_STATUS.get(exc.kind, 400))
            if exc.retry_after is not None:
                # Whole seconds, never less than the error's own figure (its message says it).
                response["Retry-After"] = retry_after(exc.retry_after)
            return response
        return Response(result.content)
