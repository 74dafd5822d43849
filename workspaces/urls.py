from __future__ import annotations

from django.urls import path

from workspaces import views

urlpatterns = [
    path("", views.home, name="home"),
    path("w/<slug:slug>/", views.workspace_detail, name="workspace_detail"),
]
