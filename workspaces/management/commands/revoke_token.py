"""revoke_token --id ID | --user EMAIL --all

Revokes through token_revoke, so each revocation is audited ("system:revoke_token").
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from workspaces.models import PersonalToken, User
from workspaces.tokens import token_revoke

ACTOR_LABEL = "system:revoke_token"


class Command(BaseCommand):
    help = "Revoke one personal access token (--id) or all of a user's (--user EMAIL --all)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--id", type=int, help="The token's id (see list_tokens).")
        parser.add_argument("--user", help="Owner's email; with --all.")
        parser.add_argument("--all", action="store_true", help="Every live token of --user.")

    def handle(self, *args: Any, **options: Any) -> None:
        token_id: int | None = options["id"]
        email: str | None = options["user"]
        if token_id is not None and (email or options["all"]):
            raise CommandError(_("Pass either --id ID or --user EMAIL --all, not both."))
        if token_id is not None:
            self._revoke_one(token_id)
        elif email and options["all"]:
            self._revoke_all(email)
        elif email:
            raise CommandError(_("--user needs --all (one token: --id ID, from list_tokens)."))
        else:
            raise CommandError(_("Pass --id ID or --user EMAIL --all."))

    def _revoke_one(self, token_id: int) -> None:
        token = PersonalToken.objects.select_related("user__firm").filter(pk=token_id).first()
        if token is None:
            raise CommandError(_("No token with id %(id)s.") % {"id": token_id})
        if token.revoked_at is not None:
            self.stdout.write(
                _("Token %(token)s was already revoked on %(date)s.")
                % {"token": self._describe(token), "date": f"{token.revoked_at:%Y-%m-%d %H:%M}"}
            )
            return
        token_revoke(token=token, actor_label=ACTOR_LABEL)
        self.stdout.write(_("Revoked %(token)s.") % {"token": self._describe(token)})

    def _revoke_all(self, email: str) -> None:
        user = User.objects.filter(email=email.strip().lower()).first()
        if user is None:
            # Inactive users are found too: revoking a departed user's tokens is the point.
            raise CommandError(_("No user %(email)s.") % {"email": email})
        live = list(
            PersonalToken.objects.select_related("user__firm").filter(
                user=user, revoked_at__isnull=True
            )
        )
        for token in live:
            token_revoke(token=token, actor_label=ACTOR_LABEL)
            self.stdout.write(_("Revoked %(token)s.") % {"token": self._describe(token)})
        if not live:
            self.stdout.write(_("%(email)s has no unrevoked token.") % {"email": user.email})

    @staticmethod
    def _describe(token: PersonalToken) -> str:
        return _("%(id)s %(prefix)s… (%(name)s) of %(email)s") % {
            "id": token.pk,
            "prefix": token.prefix,
            "name": token.name,
            "email": token.user.email,
        }
