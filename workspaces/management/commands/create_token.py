"""create_token --user EMAIL [--workspace SLUG]... [--expires-days N] [--read-only] [--name NAME]

Prints the token once; only its hash is kept.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from workspaces.models import User, Workspace
from workspaces.services import TenancyError
from workspaces.tokens import token_create


class Command(BaseCommand):
    help = "Create a personal access token for MCP and REST; it is printed once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, help="Owner's email.")
        parser.add_argument(
            "--workspace", action="append", default=[], help="Restrict to this slug (repeatable)."
        )
        parser.add_argument("--expires-days", type=int, help="Expire after N days.")
        parser.add_argument("--read-only", action="store_true", help="Read-only tools only.")
        parser.add_argument("--name", default="cli", help="What the token is for.")

    def handle(self, *args: Any, **options: Any) -> None:
        user = User.objects.filter(email=options["user"].strip().lower()).first()
        if user is None or not user.is_active:
            raise CommandError(_("No active user %(email)s.") % {"email": options["user"]})
        workspaces = []
        for slug in options["workspace"]:
            workspace = Workspace.objects.filter(firm_id=user.firm_id, slug=slug).first()
            if workspace is None:
                message = _("No workspace %(slug)r in %(firm)s.")
                raise CommandError(message % {"slug": slug, "firm": user.firm.name})
            workspaces.append(workspace)
        try:
            token, raw = token_create(
                user=user,
                name=options["name"],
                workspaces=workspaces,
                expires_days=options["expires_days"],
                read_only=options["read_only"],
                actor_label="system:create_token",
            )
        except TenancyError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(raw)
        scope = ", ".join(w.slug for w in workspaces) or _("all of the user's workspaces")
        expiry = token.expires_at.date().isoformat() if token.expires_at else _("never")
        mode = _("read-only") if token.read_only else _("read-write")
        message = _("Token for %(email)s (%(mode)s; %(scope)s; expires %(expiry)s).")
        self.stderr.write(
            message % {"email": user.email, "mode": mode, "scope": scope, "expiry": expiry}
        )
