"""Django admin for firm admins: their firm's users, workspaces, memberships and audit trail.

Install superusers see every firm; a firm admin sees only their own. Tenant tables are read
through the request's tenant scope (a firm admin's covers all the firm's workspaces).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from workspaces.models import AuditEvent, Firm, Membership, User, Workspace


def _firm_admin(request: HttpRequest) -> bool:
    user = request.user
    return bool(user.is_active and (user.is_superuser or getattr(user, "is_firm_admin", False)))


class FirmScopedAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Firm admins manage their own firm's rows without per-model permissions."""

    firm_path = "firm"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(**{self.firm_path: request.user.firm_id})  # type: ignore[union-attr]

    def has_module_permission(self, request: HttpRequest) -> bool:
        return _firm_admin(request)

    def has_view_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return _firm_admin(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
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


@admin.register(Firm)
class FirmAdmin(FirmScopedAdmin):
    firm_path = "id"
    list_display = ("name", "created_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_superuser)

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return bool(request.user.is_superuser)


class UserCreationForm(forms.ModelForm):  # type: ignore[type-arg]
    class Meta:
        model = User
        fields = ("email", "full_name", "firm", "is_firm_admin")

    def save(self, commit: bool = True) -> User:
        user: User = super().save(commit=False)
        user.set_unusable_password()  # they set one through the password reset flow
        if commit:
            user.save()
        return user


@admin.register(User)
class UserAdmin(FirmScopedAdmin, DjangoUserAdmin[User]):
    ordering = ("email",)
    list_display = ("email", "full_name", "firm", "is_firm_admin", "is_active", "last_login")
    list_filter = ("is_firm_admin", "is_active")
    search_fields = ("email", "full_name")
    add_form = UserCreationForm
    fieldsets = (
        (None, {"fields": ("email", "full_name", "firm", "password")}),
        ("Roles", {"fields": ("is_active", "is_firm_admin")}),
        ("Dates", {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = ((None, {"fields": ("email", "full_name", "firm", "is_firm_admin")}),)
    readonly_fields = ("last_login", "date_joined")
    filter_horizontal = ()


class MembershipInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Membership
    extra = 0
    autocomplete_fields = ("user",)


@admin.register(Workspace)
class WorkspaceAdmin(FirmScopedAdmin):
    list_display = ("slug", "title", "firm", "created_at")
    search_fields = ("slug", "title")
    inlines = (MembershipInline,)


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
