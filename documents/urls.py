from __future__ import annotations

from django.urls import path

from documents import views

urlpatterns = [
    path("", views.home, name="home"),
    # The dashboard: one page, under the workspace's address and its documents' old one.
    path("w/<slug:slug>/", views.document_index, name="workspace_detail"),
    path("w/<slug:slug>/documents/", views.document_index, name="document_index"),
    path("w/<slug:slug>/batches/<int:batch_id>/", views.batch_detail, name="batch_detail"),
    path("w/<slug:slug>/documents/upload/", views.document_upload, name="document_upload"),
    path("w/<slug:slug>/documents/<str:ref>/", views.document_detail, name="document_detail"),
    path(
        "w/<slug:slug>/documents/<str:ref>/original/",
        views.document_original,
        name="document_original",
    ),
]
