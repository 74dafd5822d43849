"""demo_setup: a demo firm, user and workspace with our demo data room (idempotent)."""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings
from django.core.management import call_command

from documents.management.model_command import ModelCommand
from documents.models import Document
from documents.pipeline import run_in_process, store_dataroom
from workspaces.models import User
from workspaces.services import firm_get_or_create, user_get_or_create, workspace_create
from workspaces.tenancy import workspace_scope

DEMO_EMAIL = "demo@lexroom.local"
DEMO_FIRM = "Cabinet Démo"
DEMO_DATAROOM = settings.SITE_DIR / "demo" / "dataroom.json"


class Command(ModelCommand):
    help = "Create the demo firm, user and workspace, import the demo data room, print the login."

    def handle(self, *args: Any, **options: Any) -> None:
        password = os.environ.get("LEXROOM_DEMO_PASSWORD", "lexroom-demo")
        label = "system:demo_setup"
        # The demo user's firm, whatever its admin renamed it to; the demo firm on a first run.
        existing = User.objects.select_related("firm").filter(email=DEMO_EMAIL).first()
        firm = existing.firm if existing else firm_get_or_create(name=DEMO_FIRM)[0]
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
        with workspace_scope(workspace):
            empty = not Document.objects.filter(workspace=workspace).exists()
        if empty:
            self.stdout.write(
                "Importing the demo data room (read here; the worker embeds it for the "
                "meaning search, the full-text search works at once)…"
            )
            batch, _ = store_dataroom(workspace=workspace, path=DEMO_DATAROOM, user=user)
            run_in_process(workspace=workspace, batch=batch, embed_later=True)
            # The firm's default playbooks, checked on the demo workspace (each applies to
            # the contracts of its language). By name: compliance stands on documents.
            call_command(
                "load_playbooks", "--firm", firm.name, "--assign", workspace.slug,
                stdout=self.stdout,
            )  # fmt: skip
        with workspace_scope(workspace):
            contracts = Document.objects.filter(workspace=workspace).count()
        self.stdout.write(
            f"Demo firm: {firm.name}, workspace “{workspace.title}” ({contracts} contracts)"
        )
        self.stdout.write(f"Demo login: {DEMO_EMAIL} / {password}  (workspace: {workspace.slug})")
        self.stdout.write(
            "Try first: open a contract from the dashboard (what was read, with its quotes), "
            "search “exclusivité territoriale”, then Flags → Scan the workspace (both default "
            "playbooks are assigned). Without a model the chat answers in Sources only "
            "(model status: /llm/)."
        )
