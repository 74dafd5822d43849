"""Writes for tenancy: firms, users, workspaces, memberships, audit rows."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext

from workspaces.credentials import acting_token_id
from workspaces.models import AuditEvent, Firm, Membership, Role, User, Workspace
from workspaces.tenancy import current_workspace_ids, firm_scope, workspace_scope


class TenancyError(ValueError):
    """A tenancy request that cannot be honoured; the message is shown to the operator."""


def audit_record(
    *,
    firm: Firm,
    action: str,
    actor: User | None = None,
    actor_label: str = "",
    workspace: Workspace | None = None,
    target: str = "",
    details: dict[str, Any] | None = None,
) -> AuditEvent:
    """Append an audit row. Must run inside a tenant scope that covers ``workspace``.

    A write made with a personal token records the token's id (``details.token_id``).
    """
    details = dict(details or {})
    token_id = acting_token_id()
    if token_id is not None:
        details.setdefault("token_id", token_id)
    return AuditEvent.objects.create(
        firm=firm,
        workspace=workspace,
        actor=actor,
        actor_label=actor_label or (actor.email if actor else "system"),
        action=action,
        target=target[:200],
        details=details,
    )


def _not_in_firm(user: User, firm: Firm) -> str:
    message = gettext("%(email)s is not a member of firm %(firm)r.")
    return message % {"email": user.email, "firm": firm.name}


@transaction.atomic
def firm_get_or_create(*, name: str) -> tuple[Firm, bool]:
    name = name.strip()
    if not name:
        raise TenancyError(gettext("A firm name cannot be empty."))
    return Firm.objects.get_or_create(name=name)


@transaction.atomic
def user_get_or_create(
    *, email: str, firm: Firm, password: str | None = None, actor_label: str = "system"
) -> tuple[User, bool]:
    """Find the user by email, or create them in ``firm`` (unusable password unless given).

    A user belongs to one firm: an existing user of another firm is an error, not a move.
    """
    email = User.objects.normalize_email(email.strip()).lower()
    if "@" not in email:
        raise TenancyError(gettext("%(email)r is not an email address.") % {"email": email})
    user = User.objects.filter(email=email).first()
    if user is not None:
        if user.firm_id != firm.pk:
            message = gettext("%(email)s belongs to firm %(firm)r, not %(other)r.")
            raise TenancyError(
                message % {"email": email, "firm": user.firm.name, "other": firm.name}
            )
        if password:
            user.set_password(password)
            user.save(update_fields=["password"])
        return user, False
    user = User.objects.create_user(email=email, password=password, firm=firm)
    with firm_scope(firm.pk):
        audit_record(firm=firm, actor_label=actor_label, action="user.create", target=email)
    return user, True


@transaction.atomic
def workspace_create(
    *, firm: Firm, slug: str, title: str, owner: User, actor_label: str = ""
) -> tuple[Workspace, bool]:
    """Create a workspace with ``owner`` as owner; idempotent on (firm, slug)."""
    if owner.firm_id != firm.pk:
        raise TenancyError(_not_in_firm(owner, firm))
    workspace, created = Workspace.objects.get_or_create(
        firm=firm, slug=slug, defaults={"title": title or slug}
    )
    with workspace_scope(workspace):
        if created:
            audit_record(
                firm=firm,
                workspace=workspace,
                actor_label=actor_label or owner.email,
                action="workspace.create",
                target=slug,
                details={"title": workspace.title},
            )
        membership_set(workspace=workspace, user=owner, role=Role.OWNER, actor_label=actor_label)
    return workspace, created


def membership_set(
    *, workspace: Workspace, user: User, role: str, actor_label: str = ""
) -> tuple[Membership, bool]:
    """Give ``user`` ``role`` in ``workspace``. Returns (membership, changed). Idempotent."""
    if role not in Role.values:
        message = gettext("Unknown role %(role)r; allowed: %(allowed)s.")
        raise TenancyError(message % {"role": role, "allowed": ", ".join(Role.values)})
    if user.firm_id != workspace.firm_id:
        raise TenancyError(_not_in_firm(user, workspace.firm))
    if workspace.pk not in current_workspace_ids():
        with workspace_scope(workspace):
            return membership_set(
                workspace=workspace, user=user, role=role, actor_label=actor_label
            )
    with transaction.atomic():
        membership = (
            Membership.objects.select_for_update().filter(workspace=workspace, user=user).first()
        )
        if membership is not None and membership.role == role:
            return membership, False
        previous = membership.role if membership else None
        if membership is None:
            membership = Membership.objects.create(workspace=workspace, user=user, role=role)
        else:
            membership.role = role
            membership.save(update_fields=["role"])
        audit_record(
            firm=workspace.firm,
            workspace=workspace,
            actor_label=actor_label or "system",
            action="membership.set",
            target=user.email,
            details={"role": role, "previous_role": previous},
        )
        return membership, True


def user_language_set(*, user: User, language: str) -> User:
    """Set the language of ``user``'s pages and messages (one of ``LANGUAGES``)."""
    if language not in dict(settings.LANGUAGES):
        raise TenancyError(gettext("Unknown language %(code)r.") % {"code": language})
    user.language = language
    user.save(update_fields=["language"])
    return user
