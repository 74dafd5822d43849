"""Reads for tenancy: the access helpers every entry point goes through."""

from __future__ import annotations

import functools

from django.contrib.postgres.expressions import ArraySubquery
from django.db import connection
from django.db.models import BooleanField, F, Func, OuterRef, QuerySet, Subquery, Value
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


def _with_member_role(lookup: QuerySet[Workspace], *, user: User) -> QuerySet[Workspace]:
    """Annotate ``member_role``: the user's role in each workspace, in the same query (a firm
    admin is an owner of every workspace of the firm, see :func:`membership_role`)."""
    if user.is_firm_admin:
        # Workspaces of other firms are outside the lookups that call this (firm_id filter).
        return lookup.annotate(member_role=Value(Role.OWNER.value))
    roles = Membership.objects.filter(user=user, workspace=OuterRef("pk")).values("role")
    return lookup.annotate(member_role=Subquery(roles[:1]))


def workspace_list_with_roles(*, user: User) -> QuerySet[Workspace]:
    """:func:`workspace_list_for_user`, each with the user's ``member_role``: one query."""
    return _with_member_role(workspace_list_for_user(user=user), user=user)


def membership_role(*, user: User, workspace: Workspace) -> str | None:
    """The user's role in the workspace; a firm admin is an owner of every firm workspace
    (whatever membership row they also have: they could grant it to themselves anyway)."""
    if user.is_firm_admin and user.firm_id == workspace.firm_id:
        return Role.OWNER
    return (
        Membership.objects.filter(user=user, workspace=workspace)
        .values_list("role", flat=True)
        .first()
    )


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
    One query: the workspace with the user's role in it.
    """
    if slug is None and workspace_id is None:
        raise WorkspaceNotFound()
    visible = current_workspace_ids()
    if not visible:
        raise WorkspaceNotFound()
    sql = _member_lookup_sql(by_slug=slug is not None, firm_admin=user.is_firm_admin)
    if sql is None:
        lookup = Workspace.objects.filter(firm_id=user.firm_id, id__in=visible)
        if slug is not None:
            lookup = lookup.filter(slug=slug)
        else:
            lookup = lookup.filter(id=workspace_id or 0)
        workspace = _with_member_role(lookup, user=user).first()
    else:
        key = slug if slug is not None else workspace_id
        workspace = _member_lookup(sql, user=user, visible=visible, key=key)
    role = getattr(workspace, "member_role", None)
    if workspace is None or role is None:
        raise WorkspaceNotFound()
    if ROLE_RANK[Role(role)] < ROLE_RANK[Role(min_role)]:
        raise RoleRequired(min_role)
    return workspace


@functools.cache
def _member_lookup_sql(*, by_slug: bool, firm_admin: bool) -> str | None:
    """workspace_get_for_member's query as SQL built once (it runs on every tool call, and
    Django building it each time costs more CPU than the query). Same predicate as the ORM
    form: the firm, the scope, the slug or id; the role as in :func:`_with_member_role`.
    None when a column would need a converter: then the ORM form is used."""
    fields = Workspace._meta.concrete_fields
    if any(field.get_db_converters(connection) for field in fields):
        return None
    quote = connection.ops.quote_name
    columns = ", ".join(f"w.{quote(str(field.column))}" for field in fields)
    role = (
        "%s"
        if firm_admin
        else f"(SELECT m.{quote('role')} FROM {quote(Membership._meta.db_table)} m "  # noqa: S608
        "WHERE m.user_id = %s AND m.workspace_id = w.id LIMIT 1)"
    )
    key = "slug" if by_slug else "id"
    # Only quoted names from the models' metadata are interpolated; values are parameters.
    return (
        f"SELECT {columns}, {role} FROM {quote(Workspace._meta.db_table)} w "  # noqa: S608
        f"WHERE w.firm_id = %s AND w.id = ANY(%s) AND w.{quote(key)} = %s "
        "ORDER BY w.id LIMIT 1"
    )


def _member_lookup(
    sql: str, *, user: User, visible: tuple[int, ...], key: str | int | None
) -> Workspace | None:
    role_parameter = Role.OWNER.value if user.is_firm_admin else user.pk
    with connection.cursor() as cursor:
        cursor.execute(sql, [role_parameter, user.firm_id, list(visible), key])
        row = cursor.fetchone()
    if row is None:
        return None
    names = [field.attname for field in Workspace._meta.concrete_fields]
    workspace = Workspace.from_db(connection.alias, names, row[:-1])
    workspace.member_role = row[-1]  # type: ignore[attr-defined]  # as the ORM annotation
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
