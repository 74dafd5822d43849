from __future__ import annotations

from django.urls import path

from agents import api

urlpatterns = [
    path("tools", api.ToolListApi.as_view(), name="api_tools"),
    path("tools/<str:name>", api.ToolCallApi.as_view(), name="api_tool_call"),
]
