"""Personal access tokens: create (shown once), authenticate, revoke. Stored hashed."""

from __future__ import annotations

import functools
import hashlib
import secrets
from datetime import timedelta
from typing import cast

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Model, Q
from django.utils import timezone
from django.utils.translation import gettext

from workspaces.audit import audit_record
from workspaces.models import Firm, PersonalToken, User, Workspace
from workspaces.services import TenancyError
from workspaces.tenancy import firm_scope

TOKEN_PREFIX = "lxr_"  # noqa: S105 - a prefix, not a secret
# Updating last_used on every call would turn each read into a write; once a minute is enough.
LAST_USED_RESOLUTION = timedelta(minutes=1)


def _digest(raw: str) -> str:
    # Tokens carry 256 bits of randomness: a fast hash is enough (no dictionary to attack).
    return hashlib.sha256(raw.encode()).hexdigest()


@transaction.atomic
def token_create(
    *,
    user: User,
    name: str,
    workspaces: list[Workspace] | None = None,
    expires_days: int | None = None,
    read_only: bool = False,
    actor_label: str = "",
) -> tuple[PersonalToken, str]:
    """Create a token for ``user``; returns it and the plaintext (never stored).

    Refused when the user already holds ``LEXROOM_MAX_TOKENS_PER_USER`` live tokens.
    """
    if not name.strip():
        raise TenancyError(gettext("A token needs a name (what it is for)."))
    if expires_days is not None and expires_days <= 0:
        raise TenancyError(gettext("--expires-days must be a positive number of days."))
    for workspace in workspaces or []:
        if workspace.firm_id != user.firm_id:
            message = gettext("%(slug)s is not a workspace of %(email)s's firm.")
            raise TenancyError(message % {"slug": workspace.slug, "email": user.email})
    _check_token_cap(user)
    raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = PersonalToken.objects.create(
        user=user,
        name=name.strip()[:100],
        prefix=raw[:12],
        token_hash=_digest(raw),
        workspace_ids=[w.pk for w in workspaces or []],
        read_only=read_only,
        expires_at=timezone.now() + timedelta(days=expires_days) if expires_days else None,
    )
    with firm_scope(user.firm_id):
        audit_record(
            firm=user.firm,
            actor=user,
            actor_label=actor_label or user.email,
            action="token.create",
            target=f"{token.prefix}… {token.name}",
            details={
                "workspace_ids": token.workspace_ids,
                "read_only": read_only,
                "expires_at": token.expires_at.isoformat() if token.expires_at else None,
            },
        )
    return token, raw


def token_count_live(*, user: User) -> int:
    """How many of ``user``'s tokens still authenticate (not revoked, not expired)."""
    live = Q(expires_at__isnull=True) | Q(expires_at__gt=timezone.now())
    return PersonalToken.objects.filter(live, user=user, revoked_at__isnull=True).count()


def _check_token_cap(user: User) -> None:
    # Locking the user's row makes two simultaneous creations count one after the other,
    # so parallel requests cannot each see room under the cap.
    list(User.objects.select_for_update().filter(pk=user.pk).values_list("pk", flat=True))
    limit = settings.LEXROOM_MAX_TOKENS_PER_USER
    if token_count_live(user=user) >= limit:
        message = gettext(
            "You already have %(limit)d active tokens, the most one person may hold. Revoke "
            "one you no longer use (Access tokens page, or manage.py revoke_token --id ID), "
            "then create the new one."
        )
        raise TenancyError(message % {"limit": limit})


_LOOKUP_MODELS: tuple[type[Model], ...] = (PersonalToken, User, Firm)


@functools.cache
def _lookup_sql() -> str | None:
    """The token with its user and firm, as one SQL string built once (the lookup runs on
    every API and MCP call, and Django building it each time costs more CPU than the query
    itself). None when a column would need a converter: then the ORM path is taken."""
    fields = [model._meta.concrete_fields for model in _LOOKUP_MODELS]
    if any(field.get_db_converters(connection) for group in fields for field in group):
        return None
    quote = connection.ops.quote_name
    columns = ", ".join(
        f"{alias}.{quote(str(field.column))}"
        for alias, group in zip(("t", "u", "f"), fields, strict=True)
        for field in group
    )
    token, user, firm = (quote(model._meta.db_table) for model in _LOOKUP_MODELS)
    # Only quoted names from the models' metadata are interpolated; the hash is a parameter.
    return (
        f"SELECT {columns} FROM {token} t JOIN {user} u ON u.id = t.user_id "  # noqa: S608
        f"JOIN {firm} f ON f.id = u.firm_id WHERE t.token_hash = %s ORDER BY t.id LIMIT 1"
    )


def _token_by_hash(token_hash: str) -> PersonalToken | None:
    sql = _lookup_sql()
    if sql is None:
        return (
            PersonalToken.objects.select_related("user", "user__firm")
            .filter(token_hash=token_hash)
            .first()
        )
    with connection.cursor() as cursor:
        cursor.execute(sql, [token_hash])
        row = cursor.fetchone()
    if row is None:
        return None
    instances = []
    start = 0
    for model in _LOOKUP_MODELS:
        names = [field.attname for field in model._meta.concrete_fields]
        instances.append(model.from_db(connection.alias, names, row[start : start + len(names)]))
        start += len(names)
    token = cast(PersonalToken, instances[0])
    user = cast(User, instances[1])
    user.firm = cast(Firm, instances[2])  # what select_related would have cached
    token.user = user
    return token


def token_authenticate(raw: str, *, client: str = "") -> PersonalToken | None:
    """The live token for ``raw`` (not revoked, not expired, active user), else None."""
    if not raw.startswith(TOKEN_PREFIX) or len(raw) > 200:
        return None
    token = _token_by_hash(_digest(raw))
    if token is None or not token.is_usable() or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        PersonalToken.objects.filter(pk=token.pk).update(
            last_used_at=now, last_used_from=client[:100]
        )
    return token


@transaction.atomic
def token_revoke(
    *, token: PersonalToken, actor: User | None = None, actor_label: str = ""
) -> PersonalToken:
    """Revoke ``token`` now (audited); a token already revoked is left as it is.

    ``actor`` is the person (admin page); commands pass ``actor_label`` ("system:<command>").
    """
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
        with firm_scope(token.user.firm_id):
            audit_record(
                firm=token.user.firm,
                actor=actor,
                actor_label=actor_label,
                action="token.revoke",
                target=f"{token.prefix}… {token.name}",
            )
    return token
