from __future__ import annotations

from django.urls import path

from documents import views

urlpatterns = [
    path("w/<slug:slug>/documents/", views.document_index, name="document_index"),
    path("w/<slug:slug>/documents/upload/", views.document_upload, name="document_upload"),
    path("w/<slug:slug>/documents/<str:ref>/", views.document_detail, name="document_detail"),
    path(
        "w/<slug:slug>/documents/<str:ref>/original/",
        views.document_original,
        name="document_original",
    ),
]
