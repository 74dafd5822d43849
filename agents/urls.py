from __future__ import annotations

from django.urls import path

from agents import views

urlpatterns = [
    path("llm/", views.llm_status_page, name="llm_status"),
]
