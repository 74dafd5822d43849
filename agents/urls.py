from __future__ import annotations

from django.urls import path

from agents import views

urlpatterns = [
    path("w/<slug:slug>/chat/", views.chat, name="chat"),
    path("w/<slug:slug>/chat/ask/", views.chat_ask, name="chat_ask"),
    path(
        "w/<slug:slug>/chat/<int:conversation_id>/",
        views.chat_conversation,
        name="chat_conversation",
    ),
    path("w/<slug:slug>/chat/turns/<int:turn_id>/", views.chat_turn, name="chat_turn"),
    path("w/<slug:slug>/chat/turns/<int:turn_id>/events/", views.chat_events, name="chat_events"),
    path("w/<slug:slug>/chat/turns/<int:turn_id>/decide/", views.chat_decide, name="chat_decide"),
    path("w/<slug:slug>/chat/turns/<int:turn_id>/trace/", views.chat_trace, name="chat_trace"),
    path("llm/", views.llm_status_page, name="llm_status"),
]
