"""The admin app with Lexroom's site as its default site (a throttled login page)."""

from __future__ import annotations

from django.contrib.admin.apps import AdminConfig


class LexroomAdminConfig(AdminConfig):
    """django.contrib.admin, whose default site is :class:`workspaces.auth.LexroomAdminSite`."""

    default = False  # named explicitly in INSTALLED_APPS
    default_site = "workspaces.auth.LexroomAdminSite"
