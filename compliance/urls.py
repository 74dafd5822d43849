from __future__ import annotations

from django.urls import path

from compliance import views

urlpatterns = [
    path("w/<slug:slug>/flags/", views.flags, name="flags"),
    path("w/<slug:slug>/flags/export.csv", views.flags_export, name="flags_export"),
    path(
        "w/<slug:slug>/flags/export.xlsx",
        views.flags_export,
        {"fmt": "xlsx"},
        name="flags_export_xlsx",
    ),
    path("w/<slug:slug>/flags/scan/", views.flags_scan, name="flags_scan"),
    path("w/<slug:slug>/flags/playbooks/", views.flags_playbooks, name="flags_playbooks"),
    path("w/<slug:slug>/flags/<int:flag_id>/", views.flag_review, name="flag_review"),
]
