from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class WorkspacesConfig(AppConfig):
    name = "workspaces"
    verbose_name = _("Firms and workspaces")

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from workspaces.rls import rls_apply_all

        # Every table with a workspace_id column gets its policy after each migrate, so a
        # new tenant model in any app cannot be forgotten.
        post_migrate.connect(rls_apply_all, dispatch_uid="lexroom-rls")
