from __future__ import annotations

from django.urls import path

from sources import views

app_name = "sources"
urlpatterns = [
    path("codes/", views.codes_page, name="codes"),
    path("codes/<str:code>/<str:number>/", views.article_page, name="article"),
]
