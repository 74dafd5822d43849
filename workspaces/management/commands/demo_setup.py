"""demo_setup: a demo firm, user and workspace for `make run` (idempotent)."""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand

from workspaces.services import firm_get_or_create, user_get_or_create, workspace_create

DEMO_EMAIL = "demo@lexroom.local"
DEMO_FIRM = "Cabinet Démo"


class Command(BaseCommand):
    help = "Create the demo firm, user and workspace, and print the login."

    def handle(self, *args: Any, **options: Any) -> None:
        password = os.environ.get("LEXROOM_DEMO_PASSWORD", "lexroom-demo")
        label = "system:demo_setup"
        firm, _ = firm_get_or_create(name=DEMO_FIRM)
        user, _ = user_get_or_create(
            email=DEMO_EMAIL, firm=firm, password=password, actor_label=label
        )
        if not user.is_firm_admin:
            user.is_firm_admin = True
            user.save(update_fields=["is_firm_admin"])
        workspace, _ = workspace_create(
            firm=firm,
            slug="demo",
            title="Data room de démonstration",
            owner=user,
            actor_label=label,
        )
        self.stdout.write(f"Demo login: {DEMO_EMAIL} / {password}  (workspace: {workspace.slug})")
