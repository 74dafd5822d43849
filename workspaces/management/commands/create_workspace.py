"""create_workspace SLUG --owner EMAIL [--firm NAME] [--title TITLE] [--password-env VAR]"""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.text import slugify

from workspaces.models import Firm, User
from workspaces.services import (
    TenancyError,
    firm_get_or_create,
    user_get_or_create,
    workspace_create,
)

DEFAULT_FIRM = "Lexroom"


class Command(BaseCommand):
    help = "Create a workspace (and its firm and owner when missing). Idempotent."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--owner", required=True, help="Owner's email.")
        parser.add_argument("--firm", help="Firm name (default: the owner's, or the only one).")
        parser.add_argument("--title", default="", help="Human title (default: the slug).")
        parser.add_argument(
            "--password-env",
            metavar="VAR",
            help="Environment variable holding the owner's password (else unusable password).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        slug = options["slug"]
        if slugify(slug) != slug:
            raise CommandError(f"{slug!r} is not a valid slug (try {slugify(slug)!r}).")
        password = None
        if options["password_env"]:
            password = os.environ.get(options["password_env"])
            if not password:
                raise CommandError(f"Environment variable {options['password_env']} is empty.")
        label = "system:create_workspace"
        try:
            firm = self._firm(options["firm"], options["owner"])
            owner, user_created = user_get_or_create(
                email=options["owner"], firm=firm, password=password, actor_label=label
            )
            workspace, created = workspace_create(
                firm=firm, slug=slug, title=options["title"], owner=owner, actor_label=label
            )
        except TenancyError as exc:
            raise CommandError(str(exc)) from exc
        verb = "Created" if created else "Workspace already exists:"
        self.stdout.write(f"{verb} {firm.name}/{workspace.slug} ({workspace.title}); owner {owner}")
        if user_created:
            self.stdout.write(f"Created user {owner}" + ("" if password else " (no password)"))

    def _firm(self, name: str | None, owner_email: str) -> Firm:
        if name:
            return firm_get_or_create(name=name)[0]
        existing_user = User.objects.filter(email=owner_email.strip().lower()).first()
        if existing_user is not None:
            return existing_user.firm
        firms = list(Firm.objects.all()[:2])
        if len(firms) == 1:
            return firms[0]
        if len(firms) > 1:
            raise CommandError("Several firms exist: pass --firm NAME.")
        return firm_get_or_create(name=DEFAULT_FIRM)[0]
