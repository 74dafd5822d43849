"""REST adapter over the tool registry: GET /api/tools, POST /api/tools/<name>."""

from __future__ import annotations

from typing import Any, cast

from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from agents.tools import ToolError, call_tool, tool_definitions
from workspaces.authentication import request_token
from workspaces.drf import ScopedAPIView
from workspaces.models import User

ERROR_STATUS = {
    "invalid_arguments": status.HTTP_400_BAD_REQUEST,
    "unknown_tool": status.HTTP_404_NOT_FOUND,
    "not_found": status.HTTP_404_NOT_FOUND,
    "forbidden": status.HTTP_403_FORBIDDEN,
    "rate_limited": status.HTTP_429_TOO_MANY_REQUESTS,
}


class ToolDefinitionSerializer(serializers.Serializer[Any]):
    name = serializers.CharField()
    description = serializers.CharField()
    inputSchema = serializers.DictField()
    annotations = serializers.DictField()


class ToolListApi(ScopedAPIView):
    @extend_schema(responses=ToolDefinitionSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(tool_definitions())


class ToolCallApi(ScopedAPIView):
    """Call a tool with a JSON object of arguments; the body of the response is its result."""

    # POST for every tool: the registry knows which tools write and refuses those to
    # read-only tokens.
    writes_data = False

    @extend_schema(
        request={"application/json": {"type": "object"}},
        responses={200: OpenApiResponse(description="The tool's result JSON.")},
    )
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
                response["Retry-After"] = str(int(exc.retry_after) + 1)
            return response
        return Response(result.content)
