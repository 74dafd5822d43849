from __future__ import annotations

from django.urls import path

from workspaces import views

urlpatterns = [
    path("tokens/", views.tokens, name="tokens"),
    path("tokens/<int:token_id>/revoke/", views.token_revoke_page, name="token_revoke"),
    path("language/", views.language_switch, name="language_switch"),
]
