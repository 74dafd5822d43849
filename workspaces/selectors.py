"""Reads for tenancy: the access helpers every entry point goes through."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, cast

from django.contrib.postgres.expressions import ArraySubquery
from django.db import connection
from django.db.models import BooleanField, CharField, F, Func, OuterRef, QuerySet
from django.db.models.expressions import BaseExpression, RawSQL
from django.http import Http404
from django.utils.translation import gettext

from workspaces.models import ROLE_RANK, Membership, PersonalToken, Role, User, Workspace
from workspaces.tenancy import current_workspace_ids


class WorkspaceNotFound(Http404):
    """Missing and foreign workspaces raise this alike: no existence leak."""

    def __init__(self) -> None:
        super().__init__(gettext("No such workspace."))


class RoleRequired(PermissionError):
    def __init__(self, required: str) -> None:
        message = gettext("This needs the %(role)s role in the workspace.")
        super().__init__(message % {"role": Role(required).label})
        self.required = required


def workspace_list_for_user(*, user: User) -> QuerySet[Workspace]:
    """Workspaces the user may open, within the current tenant scope."""
    return Workspace.objects.filter(firm_id=user.firm_id, id__in=current_workspace_ids()).order_by(
        "title", "slug"
    )


# --- The user's role in a workspace: one SQL expression ---------------------------------------


def _role_sql(*, firm_admin: bool, workspace_id: str) -> str:
    """The user's role in the workspace whose id is the SQL ``workspace_id``, taking one
    parameter (:func:`_role_parameter`): the role of the user's membership, or for a firm
    admin the owner role itself. A firm admin is an owner of every workspace of the firm
    (whatever membership row they also have: they could grant it to themselves anyway); the
    query around it keeps to the user's firm."""
    if firm_admin:
        return "%s"
    quote = connection.ops.quote_name
    # Only quoted names from the models' metadata are interpolated; the user is a parameter.
    return (
        f"(SELECT m.{quote('role')} FROM {quote(Membership._meta.db_table)} m "  # noqa: S608
        f"WHERE m.user_id = %s AND m.workspace_id = {workspace_id} LIMIT 1)"
    )


def _role_parameter(user: User) -> str | int:
    return Role.OWNER.value if user.is_firm_admin else user.pk


class _MemberRole(RawSQL):
    """:func:`_role_sql` as a queryset annotation. Never a GROUP BY column of its own: it
    depends on the workspace's id alone, which a grouped query groups by already (and
    Postgres refuses a firm admin's constant there)."""

    def get_group_by_cols(self) -> list[BaseExpression]:
        return []


def workspace_list_with_roles(*, user: User) -> QuerySet[Workspace]:
    """:func:`workspace_list_for_user`, each with the user's ``member_role``: one query."""
    quote = connection.ops.quote_name
    workspace_id = f"{quote(Workspace._meta.db_table)}.{quote('id')}"
    role = _MemberRole(
        _role_sql(firm_admin=user.is_firm_admin, workspace_id=workspace_id),
        [_role_parameter(user)],
        output_field=CharField(),
    )
    return workspace_list_for_user(user=user).annotate(member_role=role)


def workspace_member_role(*, user: User, workspace: Workspace) -> str | None:
    """``user``'s role in ``workspace`` (owner for a firm admin of its firm), None when they
    have none or the workspace is outside the tenant scope.

    A workspace that :func:`workspace_get_for_member` returned for ``user`` carries the role
    it read with it: no second query.
    """
    if getattr(workspace, "member_role_user_id", None) == user.pk:
        return cast("str | None", getattr(workspace, "member_role", None))
    found = _member_lookup(
        user=user, visible=current_workspace_ids(), by_slug=False, key=workspace.pk
    )
    return None if found is None else cast("str | None", getattr(found, "member_role", None))


def workspace_get_for_member(
    *,
    user: User,
    slug: str | None = None,
    workspace_id: int | None = None,
    min_role: str = Role.VIEWER,
) -> Workspace:
    """The workspace if ``user`` is a member with at least ``min_role``.

    Missing, foreign firm, not a member, or outside the tenant scope: the same 404.
    A member whose role is too low gets :class:`RoleRequired` (they know it exists).
    One query: the workspace with the user's role in it (``member_role``).
    """
    if slug is None and workspace_id is None:
        raise WorkspaceNotFound()
    visible = current_workspace_ids()
    if not visible:
        raise WorkspaceNotFound()
    key = slug if slug is not None else workspace_id or 0
    workspace = _member_lookup(user=user, visible=visible, by_slug=slug is not None, key=key)
    role = getattr(workspace, "member_role", None)
    if workspace is None or role is None:
        raise WorkspaceNotFound()
    if ROLE_RANK[Role(role)] < ROLE_RANK[Role(min_role)]:
        raise RoleRequired(min_role)
    return workspace


@functools.cache
def _member_lookup_sql(*, by_slug: bool, firm_admin: bool) -> str:
    """The workspace with the user's role as SQL built once (it runs on every tool call, and
    Django building it each time costs more CPU than the query): the firm, the scope, the
    slug or id, the role as :func:`_role_sql` reads it."""
    quote = connection.ops.quote_name
    columns = ", ".join(
        f"w.{quote(str(field.column))}" for field in Workspace._meta.concrete_fields
    )
    role = _role_sql(firm_admin=firm_admin, workspace_id="w.id")
    key = "slug" if by_slug else "id"
    # Only quoted names from the models' metadata are interpolated; values are parameters.
    return (
        f"SELECT {columns}, {role} FROM {quote(Workspace._meta.db_table)} w "  # noqa: S608
        f"WHERE w.firm_id = %s AND w.id = ANY(%s) AND w.{quote(key)} = %s "
        "ORDER BY w.id LIMIT 1"
    )


Converter = Callable[[Any, Any, Any], Any]


@functools.cache
def _workspace_converters() -> tuple[tuple[int, Any, tuple[Converter, ...]], ...]:
    """(position, column, converters) of each workspace column whose database value needs
    converting, as the ORM would (none today: kept so a new column cannot come back raw)."""
    table = Workspace._meta.db_table
    found = []
    for position, field in enumerate(Workspace._meta.concrete_fields):
        converters = tuple(field.get_db_converters(connection))
        if converters:
            found.append((position, field.get_col(table), converters))
    return tuple(found)


def _member_lookup(
    *, user: User, visible: tuple[int, ...], by_slug: bool, key: str | int
) -> Workspace | None:
    sql = _member_lookup_sql(by_slug=by_slug, firm_admin=user.is_firm_admin)
    with connection.cursor() as cursor:
        cursor.execute(sql, [_role_parameter(user), user.firm_id, list(visible), key])
        row = cursor.fetchone()
    if row is None:
        return None
    values = list(row[:-1])
    for position, column, converters in _workspace_converters():
        for converter in converters:
            values[position] = converter(values[position], column, connection)
    names = [field.attname for field in Workspace._meta.concrete_fields]
    workspace = Workspace.from_db(connection.alias, names, values)
    # As the ORM annotation; the user says whose role it is (workspace_member_role).
    workspace.member_role = row[-1]  # type: ignore[attr-defined]
    workspace.member_role_user_id = user.pk  # type: ignore[attr-defined]
    return workspace


def workspace_slugs_for_user(*, user: User) -> list[str]:
    """Slugs of the workspaces the user may open in the current scope (the allowed values
    an error lists), in slug order."""
    return list(workspace_list_for_user(user=user).order_by("slug").values_list("slug", flat=True))


def workspace_members(*, workspace: Workspace) -> QuerySet[Membership]:
    return (
        Membership.objects.filter(workspace=workspace)
        .select_related("user")
        .order_by("user__email")
    )


class _EqualsAny(Func):
    """``value = ANY(array)``: Django's ``__in`` takes a list or a subquery, not an array."""

    arg_joiner = " = ANY("
    template = "%(expressions)s)"
    output_field = BooleanField()


def token_with_workspace_slugs(queryset: QuerySet[PersonalToken]) -> QuerySet[PersonalToken]:
    """Annotate each token with ``workspace_slugs`` (its restriction; empty: unrestricted).

    One subquery instead of a lookup per row on list pages and in ``list_tokens``.
    """
    slugs = Workspace.objects.filter(_EqualsAny(F("id"), OuterRef("workspace_ids")))
    return queryset.annotate(workspace_slugs=ArraySubquery(slugs.order_by("slug").values("slug")))


def token_list_for_user(*, user: User) -> QuerySet[PersonalToken]:
    """All of ``user``'s tokens, live or not, newest first, with their workspace slugs."""
    return token_with_workspace_slugs(
        PersonalToken.objects.filter(user=user).order_by("-created_at", "-id")
    )
