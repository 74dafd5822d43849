from __future__ import annotations

from django.urls import path

from search import views

urlpatterns = [
    path("w/<slug:slug>/search/", views.search, name="search"),
    path("w/<slug:slug>/search/rate/", views.rate, name="search_rate"),
    # The firm's search adapter (firm admins): review, approve, roll back.
    path("search/learning/", views.learning, name="search_learning"),
    path(
        "search/learning/<int:adapter_id>/approve/",
        views.learning_approve,
        name="search_learning_approve",
    ),
    path("search/learning/rollback/", views.learning_roll_back, name="search_learning_rollback"),
]
