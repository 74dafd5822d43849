"""REST: the workspaces the caller may open."""

from __future__ import annotations

from typing import Any, cast

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from workspaces.drf import ScopedAPIView
from workspaces.models import User, Workspace
from workspaces.selectors import (
    workspace_get_for_member,
    workspace_list_for_user,
    workspace_member_role,
)


class WorkspaceSerializer(serializers.ModelSerializer[Workspace]):
    class Meta:
        model = Workspace
        fields: tuple[str, ...] = ("slug", "title", "created_at")


class WorkspaceListApi(ScopedAPIView):
    @extend_schema(responses=WorkspaceSerializer(many=True))
    def get(self, request: Request) -> Response:
        workspaces = workspace_list_for_user(user=cast(User, request.user))
        return Response(WorkspaceSerializer(workspaces, many=True).data)


class WorkspaceDetailApi(ScopedAPIView):
    @extend_schema_serializer(component_name="WorkspaceDetail")
    class OutputSerializer(WorkspaceSerializer):
        role = serializers.SerializerMethodField()

        class Meta(WorkspaceSerializer.Meta):
            fields = (*WorkspaceSerializer.Meta.fields, "role")

        def get_role(self, workspace: Workspace) -> Any:
            return workspace_member_role(user=self.context["user"], workspace=workspace)

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request, slug: str) -> Response:
        user = cast(User, request.user)
        workspace = workspace_get_for_member(user=user, slug=slug)
        return Response(self.OutputSerializer(workspace, context={"user": user}).data)
