from __future__ import annotations

from django.urls import path

from search import views

urlpatterns = [
    path("w/<slug:slug>/search/", views.search, name="search"),
    path("w/<slug:slug>/search/rate/", views.rate, name="search_rate"),
]
