"""create_workspace SLUG --owner EMAIL [--firm NAME] [--title TITLE] [--password-env VAR]"""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.text import slugify
from django.utils.translation import gettext as _

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
            message = _("%(slug)r is not a valid slug (try %(suggestion)r).")
            raise CommandError(message % {"slug": slug, "suggestion": slugify(slug)})
        password = None
        if options["password_env"]:
            password = os.environ.get(options["password_env"])
            if not password:
                message = _("Environment variable %(name)s is empty.")
                raise CommandError(message % {"name": options["password_env"]})
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
        if created:
            message = _("Created %(firm)s/%(slug)s (%(title)s); owner %(owner)s")
        else:
            message = _("Workspace already exists: %(firm)s/%(slug)s (%(title)s); owner %(owner)s")
        values = {"firm": firm.name, "slug": workspace.slug, "title": workspace.title}
        self.stdout.write(message % {**values, "owner": owner})
        if user_created:
            if password:
                self.stdout.write(_("Created user %(user)s") % {"user": owner})
            else:
                self.stdout.write(_("Created user %(user)s (no password)") % {"user": owner})

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
            raise CommandError(_("Several firms exist: pass --firm NAME."))
        return firm_get_or_create(name=DEFAULT_FIRM)[0]
