"""list_tokens --user EMAIL [--json]

One line per token (revoked and expired ones included); the hash is never read out.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from django.utils.translation import gettext as _

from workspaces.models import PersonalToken, User
from workspaces.selectors import token_list_for_user


def _when(value: datetime | None) -> str:
    return timezone.localtime(value).strftime("%Y-%m-%d %H:%M") if value else "-"


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


class Command(BaseCommand):
    help = "List a user's personal access tokens (never their secret)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, help="Owner's email.")
        parser.add_argument("--json", action="store_true", help="JSON instead of a table.")

    def handle(self, *args: Any, **options: Any) -> None:
        user = User.objects.filter(email=options["user"].strip().lower()).first()
        if user is None:
            raise CommandError(_("No user %(email)s.") % {"email": options["user"]})
        tokens = list(token_list_for_user(user=user))
        if options["json"]:
            self.stdout.write(json.dumps([self._as_json(t) for t in tokens], indent=2))
        elif not tokens:
            self.stdout.write(_("%(email)s has no token.") % {"email": user.email})
        else:
            self._table(tokens)

    @staticmethod
    def _as_json(token: PersonalToken) -> dict[str, Any]:
        return {
            "id": token.pk,
            "prefix": token.prefix,
            "name": token.name,
            # Empty list: every workspace the user can open.
            "workspaces": token.workspace_slugs,  # type: ignore[attr-defined]
            "read_only": token.read_only,
            "created_at": _iso(token.created_at),
            "expires_at": _iso(token.expires_at),
            "revoked_at": _iso(token.revoked_at),
            "last_used_at": _iso(token.last_used_at),
            "last_used_from": token.last_used_from,
        }

    def _table(self, tokens: list[PersonalToken]) -> None:
        header = [
            _("ID"),
            _("PREFIX"),
            _("NAME"),
            _("WORKSPACES"),
            _("READ-ONLY"),
            _("EXPIRES"),
            _("REVOKED"),
            _("LAST USED"),
            _("FROM"),
        ]
        rows = [
            [
                str(token.pk),
                f"{token.prefix}…",
                token.name,
                ",".join(token.workspace_slugs) or _("all"),  # type: ignore[attr-defined]
                _("yes") if token.read_only else _("no"),
                _when(token.expires_at) if token.expires_at else _("never"),
                _when(token.revoked_at),
                _when(token.last_used_at),
                token.last_used_from or "-",
            ]
            for token in tokens
        ]
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
        for row in [header, *rows]:
            cells = (cell.ljust(width) for cell, width in zip(row, widths, strict=True))
            self.stdout.write("  ".join(cells).rstrip())
