"""Writes for tenancy: firms, users, workspaces, memberships, audit rows."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext

from workspaces.audit import audit_record
from workspaces.models import AuditEvent, Firm, Membership, Role, User, Workspace
from workspaces.tenancy import current_workspace_ids, firm_scope, scope_in_firm, workspace_scope


class TenancyError(ValueError):
    """A tenancy request that cannot be honoured; the message is shown to the operator."""


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


# Audit rows written from outside the target's tenant scope (admin pages, sign-in).
def audit_record_scoped(
    *,
    firm: Firm,
    action: str,
    workspace: Workspace | None = None,
    actor: User | None = None,
    actor_label: str = "",
    target: str = "",
    details: dict[str, Any] | None = None,
) -> AuditEvent:
    """``audit_record`` in a scope of exactly ``firm`` (and ``workspace``), whatever the caller's.

    RLS checks writes too: a sign-in has no scope at all, and an install superuser's admin
    scope is their own firm's, so the row for another firm could not be written otherwise.
    """
    scope = scope_in_firm(
        firm=firm,
        workspace_ids=(workspace.pk,) if workspace else (),
        reason=f"audit of {action}",
        actor_label=actor_label or str(actor or ""),
    )
    with scope:
        return audit_record(
            firm=firm,
            workspace=workspace,
            actor=actor,
            actor_label=actor_label,
            action=action,
            target=target,
            details=details,
        )
