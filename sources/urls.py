from __future__ import annotations

from django.urls import path

from sources import views

app_name = "sources"
urlpatterns = [
    path("codes/", views.codes_page, name="codes"),
    path("codes/<str:code>/<str:number>/", views.article_page, name="article"),
    path("jurisprudence/", views.case_law_page, name="case_law"),
    path("jurisprudence/decision/", views.decision_page, name="decision"),
    path("jurisprudence/conclusions/", views.conclusions_page, name="conclusions"),
    path("jurisprudence/analysis/", views.analysis_page, name="analysis"),
    path("jurisprudence/save/", views.decision_save_view, name="decision_save"),
]
