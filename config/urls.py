from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from workspaces import auth

urlpatterns = [
    path("login/", auth.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password/", auth.PasswordChangeView.as_view(), name="password_change"),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("admin/", admin.site.urls),
    path("api/", include("workspaces.api_urls")),
    path("api/", include("documents.api_urls")),
    path("api/", include("agents.api_urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api_schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api_schema"), name="api_docs"),
    path("", include("documents.urls")),
    path("", include("search.urls")),
    path("", include("agents.urls")),
    path("", include("compliance.urls")),
    path("", include("sources.urls")),
    path("", include("workspaces.urls")),
]
