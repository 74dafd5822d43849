from __future__ import annotations

from django.urls import path

from documents import api

urlpatterns = [
    path("workspaces/<slug:slug>/documents/", api.DocumentListApi.as_view(), name="api_documents"),
    path(
        "workspaces/<slug:slug>/documents/upload/",
        api.DocumentUploadApi.as_view(),
        name="api_document_upload",
    ),
    path(
        "workspaces/<slug:slug>/documents/<str:ref>/",
        api.DocumentDetailApi.as_view(),
        name="api_document_detail",
    ),
    path(
        "workspaces/<slug:slug>/batches/<int:batch_id>/",
        api.BatchStatusApi.as_view(),
        name="api_batch_status",
    ),
]
