from __future__ import annotations

from django.urls import path

from workspaces import api

urlpatterns = [
    path("workspaces/", api.WorkspaceListApi.as_view(), name="api_workspaces"),
    path("workspaces/<slug:slug>/", api.WorkspaceDetailApi.as_view(), name="api_workspace"),
]
