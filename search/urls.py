from __future__ import annotations

from django.urls import path

from search import views

urlpatterns = [
    path("w/<slug:slug>/search/", views.search, name="search"),
]
