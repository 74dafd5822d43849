"""Tenancy: firms, their users, workspaces (data rooms, matters), memberships, audit trail."""

from __future__ import annotations

from typing import Any, ClassVar

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.contrib.auth.models import PermissionsMixin
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Firm(models.Model):
    """A law firm. One install may host several; users and workspaces belong to one."""

    name = models.CharField(max_length=200, unique=True)
    language = models.CharField(
        _("language"),
        max_length=10,
        choices=settings.LANGUAGES,
        blank=True,
        help_text=_(
            "Language of the pages, messages and API errors for the firm's users; blank: the "
            "install's (LANGUAGE_CODE, French by default)."
        ),
    )
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return self.name


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def create_user(self, email: str, password: str | None = None, **extra: Any) -> User:
        if not email:
            raise ValueError("An email address is required.")
        user = self.model(email=self.normalize_email(email).lower(), **extra)
        user.set_password(password)  # None gives an unusable password
        user.save(using=self._db)
        return user

    def get_by_natural_key(self, username: str | None) -> User:
        # Emails are stored lower-case: "Demo@Lexroom.local" signs in as demo@lexroom.local.
        return self.get(email=(username or "").strip().lower())

    def create_superuser(self, email: str, password: str | None = None, **extra: Any) -> User:
        extra.setdefault("is_superuser", True)
        extra.setdefault("is_firm_admin", True)
        if "firm" not in extra and "firm_id" not in extra:
            extra["firm"], _ = Firm.objects.get_or_create(name="Lexroom")
        return self.create_user(email, password, **extra)


class User(AbstractBaseUser, PermissionsMixin):
    """A firm member. Logs in with their email; firm admins manage the firm in the admin."""

    email = models.EmailField(unique=True)
    full_name = models.CharField(max_length=200, blank=True)
    language = models.CharField(
        _("language"),
        max_length=10,
        choices=settings.LANGUAGES,
        blank=True,
        help_text=_("Blank: the firm's language."),
    )
    firm = models.ForeignKey(Firm, on_delete=models.PROTECT, related_name="users")
    is_firm_admin = models.BooleanField(
        default=False, help_text="Manages the firm's users and workspaces in the admin."
    )
    is_active = models.BooleanField(default=True)
    date_joined = models.DateTimeField(default=timezone.now)

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS: ClassVar[list[str]] = []

    def __str__(self) -> str:
        return self.email

    @property
    def is_staff(self) -> bool:
        # The admin is for firm admins (and install superusers), nobody else.
        return self.is_firm_admin or self.is_superuser

    @property
    def preferred_language(self) -> str:
        """The user's own language, else the firm's, else the install's."""
        return self.language or self.firm.language or settings.LANGUAGE_CODE

    def get_full_name(self) -> str:
        return self.full_name or self.email

    def get_short_name(self) -> str:
        return self.full_name.split(" ")[0] if self.full_name else self.email


class Workspace(models.Model):
    """A data room or a matter. All tenant data hangs off a workspace and is RLS-isolated."""

    firm = models.ForeignKey(Firm, on_delete=models.PROTECT, related_name="workspaces")
    slug = models.SlugField(max_length=80)
    title = models.CharField(max_length=200)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["firm", "slug"], name="workspace_slug_unique_per_firm")
        ]

    def __str__(self) -> str:
        return self.title or self.slug


class Role(models.TextChoices):
    OWNER = "owner", "Owner"
    EDITOR = "editor", "Editor"
    VIEWER = "viewer", "Viewer"


# What each role may do, from least to most. A higher role includes the lower ones.
ROLE_RANK = {Role.VIEWER: 1, Role.EDITOR: 2, Role.OWNER: 3}


class Membership(models.Model):
    """User, workspace and role. RLS: visible in the workspace scope or to the user it names."""

    # The policy also lets a user read their own memberships, which is how the access
    # selectors find a user's workspaces before any workspace is in scope.
    rls_user_column: ClassVar[str] = "user_id"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["workspace", "user"], name="membership_unique")
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.workspace} · {self.role}"


class AuditEvent(models.Model):
    """Who did what, where, when. Written by services that change data; never updated."""

    # Firm-level events (no workspace) are visible to the firm's scope.
    rls_firm_column: ClassVar[str] = "firm_id"

    firm = models.ForeignKey(Firm, on_delete=models.PROTECT, related_name="+")
    workspace = models.ForeignKey(
        Workspace, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_label = models.CharField(
        max_length=200, help_text="Email or 'system:<command>' at the time of the event."
    )
    action = models.CharField(max_length=80, db_index=True)
    target = models.CharField(max_length=200, blank=True)
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor_label} {self.action} {self.target}"


class PersonalToken(models.Model):
    """A user's API/MCP token. Only its SHA-256 is stored; the token is shown once."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=16, help_text="First characters, to recognise it.")
    token_hash = models.CharField(max_length=64, unique=True)
    # Empty: every workspace the user can open. An array, not a relation, so reading it
    # needs no tenant scope (it is read to build that scope).
    workspace_ids = ArrayField(models.BigIntegerField(), default=list, blank=True)
    read_only = models.BooleanField(default=False)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    last_used_from = models.CharField(max_length=100, blank=True)

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.name})"

    def is_usable(self, now: Any = None) -> bool:
        now = now or timezone.now()
        if self.revoked_at is not None:
            return False
        return self.expires_at is None or self.expires_at > now


class LoginFailure(models.Model):
    """A failed (or still running) sign-in attempt, counted to stop password guessing.

    Not tenant data (no workspace): counted before anyone is signed in. The account is kept
    as a keyed hash of the normalised email, never as typed (people type passwords there).
    """

    account_key = models.CharField(max_length=64)
    client = models.CharField(max_length=100, blank=True, help_text="Client IP address.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["account_key", "created_at"], name="loginfailure_account"),
            models.Index(fields=["client", "created_at"], name="loginfailure_client"),
            models.Index(fields=["created_at"], name="loginfailure_created"),
        ]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.client}"
