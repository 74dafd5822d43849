"""add_member SLUG EMAIL --role owner|editor|viewer [--firm NAME]"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext

from workspaces.models import Role, Workspace
from workspaces.services import TenancyError, membership_set, user_get_or_create


class Command(BaseCommand):
    help = "Give a user a role in a workspace (creating the user in its firm). Idempotent."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("email")
        parser.add_argument("--role", required=True, choices=Role.values)
        parser.add_argument("--firm", help="Firm name, when several firms use the slug.")

    def handle(self, *args: Any, **options: Any) -> None:
        candidates = Workspace.objects.filter(slug=options["slug"]).select_related("firm")
        if options["firm"]:
            candidates = candidates.filter(firm__name=options["firm"])
        found = list(candidates[:2])
        if not found:
            raise CommandError(gettext("No workspace %(slug)r.") % {"slug": options["slug"]})
        if len(found) > 1:
            firms = ", ".join(sorted(w.firm.name for w in candidates))
            message = gettext("Several firms have %(slug)r (%(firms)s): pass --firm.")
            raise CommandError(message % {"slug": options["slug"], "firms": firms})
        workspace = found[0]
        label = "system:add_member"
        try:
            user, user_created = user_get_or_create(
                email=options["email"], firm=workspace.firm, actor_label=label
            )
            _, changed = membership_set(
                workspace=workspace, user=user, role=options["role"], actor_label=label
            )
        except TenancyError as exc:
            raise CommandError(str(exc)) from exc
        if user_created:
            self.stdout.write(gettext("Created user %(user)s (no password)") % {"user": user})
        if changed:
            message = gettext("%(user)s is now %(role)s of %(workspace)s")
        else:
            message = gettext("%(user)s is already %(role)s of %(workspace)s")
        # The role as typed: --role takes the machine values (owner, editor, viewer).
        values = {"user": user, "role": options["role"], "workspace": workspace.slug}
        self.stdout.write(message % values)
