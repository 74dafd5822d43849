"""Django admin for firm admins: their firm's users, workspaces, memberships and audit trail.

Install superusers see every firm; a firm admin sees only their own. Tenant tables are read
through the request's tenant scope (a firm admin's covers all the firm's workspaces).
What is created, changed or deleted here (users, passwords, workspaces, memberships) is
audited with the fields' values, never a password hash.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date
from typing import Any, cast

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.options import BaseModelAdmin
from django.contrib.admin.utils import unquote
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import UserChangeForm as DjangoUserChangeForm
from django.db.models import Model, QuerySet
from django.forms import ModelForm
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from workspaces.models import AuditEvent, Firm, Membership, PersonalToken, User, Workspace
from workspaces.selectors import token_with_workspace_slugs
from workspaces.services import audit_record_scoped
from workspaces.tenancy import current_workspace_ids, scope_in_firm
from workspaces.tokens import token_revoke

# Named in the audit when they change, their values never.
SECRET_FIELDS = frozenset({"password", "token_hash"})
NOT_RECORDED = "(changed, not recorded)"  # an audit value (data), not a sentence on a page


def _firm_admin(request: HttpRequest) -> bool:
    user = request.user
    return bool(user.is_active and (user.is_superuser or getattr(user, "is_firm_admin", False)))


class FirmScoped(BaseModelAdmin):  # type: ignore[type-arg]
    """Firm admins manage their own firm's rows without per-model permissions.

    Shared by the model admins and their inlines (which would otherwise ask for Django's
    model permissions, which firm admins do not hold, and stay hidden from them).
    """

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return _firm_admin(request)

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return _firm_admin(request)

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return _firm_admin(request)

    def formfield_for_foreignkey(
        self, db_field: Any, request: HttpRequest, **kwargs: Any
    ) -> forms.ModelChoiceField[Any] | None:
        # Choices limited to the admin's firm, so a firm admin cannot pick another firm's rows.
        if not request.user.is_superuser:
            firm_id = request.user.firm_id  # type: ignore[union-attr]
            model = db_field.related_model
            if model is Firm:
                kwargs["queryset"] = Firm.objects.filter(id=firm_id)
            elif model in (User, Workspace):
                kwargs["queryset"] = model.objects.filter(firm_id=firm_id)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class FirmScopedAdmin(FirmScoped, admin.ModelAdmin):  # type: ignore[type-arg]
    """A model admin for firm admins, showing only their firm's rows (superusers: all)."""

    firm_path = "firm"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(**{self.firm_path: request.user.firm_id})  # type: ignore[union-attr]

    def has_module_permission(self, request: HttpRequest) -> bool:
        return _firm_admin(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return _firm_admin(request)


@dataclass(frozen=True)
class AuditPlace:
    """Where an admin write is audited: action prefix, firm, workspace (or firm-level), target."""

    entity: str
    firm: Firm
    workspace: Workspace | None
    target: str


def audit_place(obj: Model) -> AuditPlace:
    if isinstance(obj, User):
        return AuditPlace("user", obj.firm, None, obj.email)
    if isinstance(obj, Workspace):
        return AuditPlace("workspace", obj.firm, obj, obj.slug)
    if isinstance(obj, Membership):
        return AuditPlace("membership", obj.workspace.firm, obj.workspace, obj.user.email)
    if isinstance(obj, PersonalToken):
        return AuditPlace("token", obj.user.firm, None, f"{obj.prefix}… {obj.name}")
    if isinstance(obj, Firm):
        return AuditPlace("firm", obj, None, obj.name)
    workspace = getattr(obj, "workspace", None)
    if isinstance(workspace, Workspace):
        # Any other tenant row (documents, entities, links…): audited in its workspace.
        return AuditPlace(obj._meta.model_name or "row", workspace.firm, workspace, str(obj))
    raise TypeError(f"No audit place for {type(obj).__name__}.")


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, date):  # datetimes too
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    return str(value)  # related rows by their name, not their id


def _created_values(obj: Model) -> dict[str, Any]:
    return {
        field.name: _jsonable(getattr(obj, field.name))
        for field in obj._meta.concrete_fields
        if field.editable and not field.primary_key and field.name not in SECRET_FIELDS
    }


def _changes(before: Model, after: Model, names: Iterable[str]) -> dict[str, Any]:
    """``{field: [before, after]}`` for the changed model fields; secrets by name only."""
    concrete = {field.name for field in after._meta.concrete_fields}
    return {
        name: NOT_RECORDED
        if name in SECRET_FIELDS
        else [_jsonable(getattr(before, name)), _jsonable(getattr(after, name))]
        for name in names
        if name in concrete
    }


def admin_audit(
    request: HttpRequest, place: AuditPlace, verb: str, details: dict[str, Any] | None = None
) -> None:
    audit_record_scoped(
        firm=place.firm,
        workspace=place.workspace,
        actor=cast(User, request.user),  # the admin only lets signed-in staff through
        action=f"{place.entity}.{verb}",
        target=place.target,
        details=details,
    )


class AuditedAdmin(FirmScopedAdmin):
    """Audits every add, change and delete made through this admin and its inlines.

    The rows are written in the admin's transaction: a change that cannot be audited is not
    made.
    """

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        # The form has already copied its values onto ``obj``: the old ones come from the table.
        before = type(obj)._default_manager.filter(pk=obj.pk).first() if change else None
        super().save_model(request, obj, form, change)
        if before is None:
            admin_audit(request, audit_place(obj), "create", {"values": _created_values(obj)})
            return
        changes = _changes(before, obj, form.changed_data)
        if changes:
            admin_audit(request, audit_place(obj), "change", {"changed": changes})

    def save_formset(
        self, request: HttpRequest, form: ModelForm[Any], formset: Any, change: bool
    ) -> None:
        # The inline's rows as they were, before the formset saves the posted values.
        changed_pks = [f.instance.pk for f in formset.initial_forms if f.has_changed()]
        before = formset.model._default_manager.in_bulk(changed_pks)
        super().save_formset(request, form, formset, change)
        for obj in formset.new_objects:
            admin_audit(request, audit_place(obj), "create", {"values": _created_values(obj)})
        for obj, names in formset.changed_objects:
            changes = _changes(before[obj.pk], obj, names)
            admin_audit(request, audit_place(obj), "change", {"changed": changes})
        for obj in formset.deleted_objects:
            admin_audit(request, audit_place(obj), "delete", {"values": _created_values(obj)})

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        place = self._deleted_place(obj)  # read before the row (and its relations) goes
        super().delete_model(request, obj)
        admin_audit(request, place, "delete")

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        places = [self._deleted_place(obj) for obj in queryset]
        super().delete_queryset(request, queryset)
        for place in places:
            admin_audit(request, place, "delete")

    @staticmethod
    def _deleted_place(obj: Model) -> AuditPlace:
        place = audit_place(obj)
        # A deleted workspace's row is gone: its deletion is a firm-level event.
        return replace(place, workspace=None) if isinstance(obj, Workspace) else place


@admin.register(Firm)
class FirmAdmin(AuditedAdmin):
    firm_path = "id"
    list_display = ("name", "language", "agent_external_sites", "created_at")
    readonly_fields = ("created_at",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_superuser)

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return bool(request.user.is_superuser)


def _clean_email(form: forms.ModelForm[Any]) -> str:
    """Emails are stored lower-case and unique whatever their case (they are the login)."""
    email = User.objects.normalize_email(str(form.cleaned_data["email"]).strip()).lower()
    taken = User.objects.filter(email__iexact=email).exclude(pk=form.instance.pk)
    if taken.exists():
        raise forms.ValidationError(_("A user with this email address already exists."))
    return email


class UserCreationForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = User
        fields = ("email", "full_name", "firm", "is_firm_admin")

    clean_email = _clean_email

    def save(self, commit: bool = True) -> User:
        user: User = super().save(commit=False)
        user.set_unusable_password()  # they set one through the password reset flow
        if commit:
            user.save()
        return user


class UserChangeForm(DjangoUserChangeForm[User]):
    clean_email = _clean_email


@admin.register(User)
class UserAdmin(AuditedAdmin, DjangoUserAdmin[User]):
    ordering = ("email",)
    list_display = ("email", "full_name", "firm", "is_firm_admin", "is_active", "last_login")
    list_filter = ("is_firm_admin", "is_active")
    search_fields = ("email", "full_name")
    add_form = UserCreationForm
    form = UserChangeForm
    fieldsets = (
        (None, {"fields": ("email", "full_name", "firm", "password")}),
        (_("Roles"), {"fields": ("is_active", "is_firm_admin")}),
        (_("Dates"), {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = ((None, {"fields": ("email", "full_name", "firm", "is_firm_admin")}),)
    readonly_fields = ("last_login", "date_joined")
    filter_horizontal = ()

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        # An install superuser is out of a firm admin's reach (no view, edit, password set or
        # delete): otherwise a firm admin could take the superuser's account, and every firm.
        queryset = super().get_queryset(request)
        return queryset if request.user.is_superuser else queryset.filter(is_superuser=False)

    def user_change_password(
        self, request: HttpRequest, id: str, form_url: str = ""
    ) -> HttpResponse:
        # Django's view saves and redirects in one go; comparing the stored hash before and
        # after tells a real change from a refused form without copying the view.
        user = self.get_object(request, unquote(id))
        previous_hash = user.password if user is not None else None
        response = super().user_change_password(request, id, form_url)
        if user is not None and request.method == "POST":
            user.refresh_from_db(fields=["password"])
            if user.password != previous_hash:
                details = {"usable": user.has_usable_password()}
                admin_audit(request, audit_place(user), "password_set", details)
        return response


class MembershipInline(FirmScoped, admin.TabularInline):  # type: ignore[type-arg]
    model = Membership
    extra = 0
    autocomplete_fields = ("user",)
    readonly_fields = ("created_at",)  # when the access began is a fact, not a setting

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return _firm_admin(request)


@admin.register(Workspace)
class WorkspaceAdmin(AuditedAdmin):
    list_display = ("slug", "title", "firm", "created_at")
    search_fields = ("slug", "title")
    inlines = (MembershipInline,)
    readonly_fields = ("created_at",)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        # A workspace added on this page is not in the scope the request opened with (RLS
        # would refuse its memberships): widen the scope by it for the inline's rows.
        workspace: Workspace = form.instance
        scope = scope_in_firm(
            firm=workspace.firm,
            workspace_ids=(*current_workspace_ids(), workspace.pk),
            user_id=request.user.pk,
            reason="admin: memberships of a workspace",
            actor_label=str(getattr(request.user, "email", "")),
        )
        with scope:
            super().save_related(request, form, formsets, change)


@admin.register(PersonalToken)
class PersonalTokenAdmin(AuditedAdmin):
    """Tokens of the firm's users: seen, renamed and revoked here, never created or deleted.

    Tokens are made by ``create_token`` (the secret is shown once, to its owner). Deleting
    one would orphan the audit rows that name it: revoke instead.
    """

    firm_path = "user__firm"
    list_display = (
        "user",
        "name",
        "prefix",
        "workspaces",
        "read_only",
        "expires_at",
        "revoked_at",
        "last_used_at",
        "last_used_from",
    )
    list_filter = ("read_only", ("revoked_at", admin.EmptyFieldListFilter))
    list_select_related = ("user",)
    search_fields = ("name", "prefix", "user__email")
    ordering = ("-created_at",)
    # The hash is not even a read-only field: nothing on these pages can show it.
    fields = (
        "user",
        "name",
        "prefix",
        "workspaces",
        "read_only",
        "created_at",
        "expires_at",
        "revoked_at",
        "last_used_at",
        "last_used_from",
    )
    readonly_fields = tuple(name for name in fields if name != "name")  # a label, nothing more
    actions = ("revoke",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return token_with_workspace_slugs(super().get_queryset(request))

    @admin.display(description=_("workspaces"))
    def workspaces(self, token: PersonalToken) -> str:
        return ", ".join(token.workspace_slugs) or str(_("all"))  # type: ignore[attr-defined]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    @admin.action(description=_("Revoke selected tokens"), permissions=["change"])
    def revoke(self, request: HttpRequest, queryset: QuerySet[PersonalToken]) -> None:
        live = list(queryset.filter(revoked_at__isnull=True).select_related("user__firm"))
        for token in live:
            token_revoke(token=token, actor=cast(User, request.user))
        message = ngettext("Revoked %(count)d token.", "Revoked %(count)d tokens.", len(live))
        self.message_user(request, message % {"count": len(live)}, messages.SUCCESS)


@admin.register(AuditEvent)
class AuditEventAdmin(FirmScopedAdmin):
    list_display = ("created_at", "actor_label", "action", "workspace", "target")
    list_filter = ("action",)
    search_fields = ("actor_label", "target", "action")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False
