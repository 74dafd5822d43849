"""Tenancy: firms, their users, workspaces (data rooms, matters), memberships, audit trail."""

from __future__ import annotations

from typing import Any, ClassVar

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.contrib.auth.models import PermissionsMixin
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _


class Firm(models.Model):
    """A law firm. One install may host several; users and workspaces belong to one."""

    name = models.CharField(_("name"), max_length=200, unique=True)
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
    # The case-law tools send the agent's queries to public sites (the Conseil d'État's, the
    # open data's): a firm whose questions must not leave the machine turns them off.
    agent_external_sites = models.BooleanField(
        _("agent may query public sites"),
        default=True,
        # In the database too: a row written by raw SQL or an older release gets it.
        db_default=True,
        help_text=_(
            "The chat agent may search public case-law sites (Conseil d'État, open data) with "
            "short queries built from the question. Off: nothing the agent does leaves the server."
        ),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("firm")
        verbose_name_plural = _("firms")

    def __str__(self) -> str:
        return self.name

    @property
    def preferred_language(self) -> str:
        """The firm's language, else the install's (``LANGUAGE_CODE``)."""
        return self.language or settings.LANGUAGE_CODE


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def create_user(self, email: str, password: str | None = None, **extra: Any) -> User:
        if not email:
            raise ValueError(gettext("An email address is required."))
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

    email = models.EmailField(_("email"), unique=True)
    full_name = models.CharField(_("full name"), max_length=200, blank=True)
    language = models.CharField(
        _("language"),
        max_length=10,
        choices=settings.LANGUAGES,
        blank=True,
        help_text=_("Blank: the firm's language."),
    )
    firm = models.ForeignKey(
        Firm, on_delete=models.PROTECT, related_name="users", verbose_name=_("firm")
    )
    is_firm_admin = models.BooleanField(
        _("firm admin"),
        default=False,
        help_text=_("Manages the firm's users and workspaces in the admin."),
    )
    is_active = models.BooleanField(_("active"), default=True)
    date_joined = models.DateTimeField(_("date joined"), default=timezone.now)

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS: ClassVar[list[str]] = []

    class Meta:
        verbose_name = _("user")
        verbose_name_plural = _("users")

    def __str__(self) -> str:
        return self.email

    @property
    def is_staff(self) -> bool:
        # The admin is for firm admins (and install superusers), nobody else.
        return self.is_firm_admin or self.is_superuser

    @property
    def preferred_language(self) -> str:
        """The user's own language, else the firm's, else the install's."""
        return self.language or self.firm.preferred_language

    def get_full_name(self) -> str:
        return self.full_name or self.email

    def get_short_name(self) -> str:
        return self.full_name.split(" ")[0] if self.full_name else self.email


class Workspace(models.Model):
    """A data room or a matter. All tenant data hangs off a workspace and is RLS-isolated."""

    firm = models.ForeignKey(
        Firm, on_delete=models.PROTECT, related_name="workspaces", verbose_name=_("firm")
    )
    slug = models.SlugField(_("slug"), max_length=80)
    title = models.CharField(_("title"), max_length=200)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("workspace")
        verbose_name_plural = _("workspaces")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["firm", "slug"], name="workspace_slug_unique_per_firm")
        ]

    def __str__(self) -> str:
        return self.title or self.slug


class Role(models.TextChoices):
    OWNER = "owner", _("Owner")
    EDITOR = "editor", _("Editor")
    VIEWER = "viewer", _("Viewer")


# What each role may do, from least to most. A higher role includes the lower ones.
ROLE_RANK = {Role.VIEWER: 1, Role.EDITOR: 2, Role.OWNER: 3}


class Membership(models.Model):
    """User, workspace and role. RLS: visible in the workspace scope or to the user it names."""

    # The policy also lets a user read their own memberships, which is how the access
    # selectors find a user's workspaces before any workspace is in scope.
    rls_user_column: ClassVar[str] = "user_id"

    workspace = models.ForeignKey(
        Workspace,
        on_delete=models.CASCADE,
        related_name="memberships",
        verbose_name=_("workspace"),
    )
    user = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("user")
    )
    role = models.CharField(_("role"), max_length=10, choices=Role.choices)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["workspace", "user"], name="membership_unique")
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.workspace} · {self.role}"

    def clean(self) -> None:
        """A member is of the workspace's firm (the admin's forms; services check it too)."""
        super().clean()
        try:
            user, workspace = self.user, self.workspace
        except ObjectDoesNotExist:
            return  # the missing field says so itself
        if user.firm_id != workspace.firm_id:
            message = _("%(email)s is not a member of the workspace's firm.")
            raise ValidationError({"user": message % {"email": user.email}})


class AuditEvent(models.Model):
    """Who did what, where, when. Written by services that change data; never updated."""

    # Firm-level events (no workspace) are visible to the firm's scope.
    rls_firm_column: ClassVar[str] = "firm_id"

    firm = models.ForeignKey(
        Firm, on_delete=models.PROTECT, related_name="+", verbose_name=_("firm")
    )
    workspace = models.ForeignKey(
        Workspace,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("workspace"),
    )
    actor = models.ForeignKey(
        User,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("actor"),
    )
    actor_label = models.CharField(
        _("actor label"),
        max_length=200,
        help_text=_("Email or 'system:<command>' at the time of the event."),
    )
    action = models.CharField(_("action"), max_length=80, db_index=True)
    target = models.CharField(_("target"), max_length=200, blank=True)
    details = models.JSONField(_("details"), default=dict, blank=True)
    created_at = models.DateTimeField(_("date"), default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("audit event")
        verbose_name_plural = _("audit events")
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor_label} {self.action} {self.target}"


class PersonalToken(models.Model):
    """A user's API/MCP token. Only its SHA-256 is stored; the token is shown once."""

    user = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="tokens", verbose_name=_("user")
    )
    name = models.CharField(_("name"), max_length=100)
    prefix = models.CharField(
        _("prefix"), max_length=16, help_text=_("First characters, to recognise it.")
    )
    token_hash = models.CharField(max_length=64, unique=True)
    # Empty: every workspace the user can open. An array, not a relation, so reading it
    # needs no tenant scope (it is read to build that scope).
    workspace_ids = ArrayField(
        models.BigIntegerField(), default=list, blank=True, verbose_name=_("workspace ids")
    )
    read_only = models.BooleanField(_("read-only"), default=False)
    expires_at = models.DateTimeField(_("expires at"), null=True, blank=True)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True)
    last_used_from = models.CharField(_("last used from"), max_length=100, blank=True)

    class Meta:
        verbose_name = _("personal token")
        verbose_name_plural = _("personal tokens")

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.name})"

    @property
    def restricted_to(self) -> list[int] | None:
        """The workspaces the token is limited to; None: all the user's (an empty list)."""
        return list(self.workspace_ids) or None

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
