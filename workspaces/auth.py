"""Sign-in pages: login throttled per account and per client address; own password change.

Throttling: every attempt is first written down as a failure, then the recent failures are
counted. Concurrent guesses therefore see each other and cannot all slip under the limit.
A success deletes the account's rows; a refused attempt deletes its own, so a lockout ends
by itself when its failures leave the window, however often someone keeps trying.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import views as auth_views
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.forms import AuthenticationForm, PasswordChangeForm
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from workspaces.models import LoginFailure, User
from workspaces.services import audit_record_scoped

logger = logging.getLogger(__name__)


class UserWithFirmBackend(ModelBackend):
    """Django's model backend, loading the user's firm with them: every signed-in request
    reads it (the language, the tenant scope), so it costs no second query."""

    def get_user(self, user_id: Any) -> User | None:
        user = User.objects.select_related("firm").filter(pk=user_id).first()
        return user if user is not None and self.user_can_authenticate(user) else None


class LoginLocked(Exception):
    """Too many recent failures for the account (or the client address)."""

    def __init__(self, *, for_account: bool, minutes: int) -> None:
        super().__init__(f"sign-in locked ({'account' if for_account else 'client'})")
        self.for_account = for_account
        self.minutes = minutes

    @property
    def message(self) -> str:
        """What the person is told, in the active language."""
        if self.for_account:
            message = ngettext(
                "Too many failed attempts for this account; try again in %(minutes)d minute.",
                "Too many failed attempts for this account; try again in %(minutes)d minutes.",
                self.minutes,
            )
        else:
            message = ngettext(
                "Too many failed attempts from this address; try again in %(minutes)d minute.",
                "Too many failed attempts from this address; try again in %(minutes)d minutes.",
                self.minutes,
            )
        return message % {"minutes": self.minutes}


def client_address(request: HttpRequest) -> str:
    """The client's IP address, from REMOTE_ADDR only.

    Behind the TLS proxy, ``serve`` runs uvicorn with ``proxy_headers``: uvicorn already puts
    the address the trusted proxy saw (``FORWARDED_ALLOW_IPS``) in REMOTE_ADDR. The leftmost
    X-Forwarded-For entry is whatever the client sent, so reading it here would let anyone
    claim a fresh address for every guess.
    """
    return str(request.META.get("REMOTE_ADDR", ""))[:100]


def _account_key(email: str) -> str:
    # Keyed with SECRET_KEY: the table does not tell which emails were tried.
    normalised = email.strip().lower()
    return salted_hmac("lexroom.login", normalised, algorithm="sha256").hexdigest()


def _minutes_until_below(failures: QuerySet[LoginFailure], limit: int, now: datetime) -> int | None:
    """Minutes until fewer than ``limit`` of ``failures`` are in the window; None: already."""
    newest = list(failures.order_by("-created_at").values_list("created_at", flat=True)[:limit])
    if len(newest) < limit:
        return None
    window = timedelta(minutes=settings.LEXROOM_LOGIN_LOCKOUT_MINUTES)
    seconds = (newest[-1] + window - now).total_seconds()
    return max(1, math.ceil(seconds / 60))


def login_attempt(*, email: str, client: str, check_credentials: Callable[[], object]) -> None:
    """Run ``check_credentials`` (raises ValidationError when they are wrong) unless locked.

    Raises :class:`LoginLocked` without checking anything when the account has
    ``LEXROOM_LOGIN_MAX_FAILURES`` failures in the last ``LEXROOM_LOGIN_LOCKOUT_MINUTES``, or
    the client address ``LEXROOM_LOGIN_MAX_FAILURES_PER_IP``. Unknown emails are counted
    and refused the same way, so the answers do not tell which accounts exist.

    Deliberately not one transaction: the attempt's row must be visible to concurrent
    attempts before the password is checked.
    """
    now = timezone.now()
    window_start = now - timedelta(minutes=settings.LEXROOM_LOGIN_LOCKOUT_MINUTES)
    LoginFailure.objects.filter(created_at__lt=window_start).delete()  # keeps the table small
    key = _account_key(email)
    attempt = LoginFailure.objects.create(account_key=key, client=client, created_at=now)
    others = LoginFailure.objects.filter(created_at__gte=window_start).exclude(pk=attempt.pk)
    limit = settings.LEXROOM_LOGIN_MAX_FAILURES
    minutes = _minutes_until_below(others.filter(account_key=key), limit, now)
    for_account = minutes is not None
    if minutes is None and client:
        limit = settings.LEXROOM_LOGIN_MAX_FAILURES_PER_IP
        minutes = _minutes_until_below(others.filter(client=client), limit, now)
    if minutes is not None:
        attempt.delete()
        raise LoginLocked(for_account=for_account, minutes=minutes)
    try:
        check_credentials()
    except ValidationError:
        _failure_record(email=email, client=client, key=key, window_start=window_start)
        raise
    LoginFailure.objects.filter(account_key=key).delete()


def _failure_record(*, email: str, client: str, key: str, window_start: datetime) -> None:
    """Audit a failed sign-in (and the lockout it causes) for an existing account."""
    recent = LoginFailure.objects.filter(created_at__gte=window_start)
    failures = recent.filter(account_key=key).count()
    locked = failures >= settings.LEXROOM_LOGIN_MAX_FAILURES
    if (
        client
        and recent.filter(client=client).count() >= settings.LEXROOM_LOGIN_MAX_FAILURES_PER_IP
    ):
        logger.warning("Sign-in locked for client address %s (too many failures).", client)
    user = User.objects.select_related("firm").filter(email=email.strip().lower()).first()
    if user is None:
        return  # no firm to audit it for; unknown emails are answered like the others
    details = {"client": client, "failures": failures}
    audit_record_scoped(
        firm=user.firm,
        action="auth.login_failed",
        actor_label="anonymous",
        target=user.email,
        details=details,
    )
    if locked:
        minutes = settings.LEXROOM_LOGIN_LOCKOUT_MINUTES
        audit_record_scoped(
            firm=user.firm,
            action="auth.lockout",
            actor_label="anonymous",
            target=user.email,
            details={**details, "minutes": minutes},
        )


class ThrottledAuthenticationForm(AuthenticationForm):
    """Email and password, refused for a while after too many failures (login_attempt)."""

    lockout: LoginLocked | None = None

    @property
    def lockout_message(self) -> str:
        return self.lockout.message if self.lockout is not None else ""

    def clean(self) -> dict[str, Any]:
        email = self.cleaned_data.get("username")
        password = self.cleaned_data.get("password")
        if not email or not password or self.request is None:
            return super().clean()  # a missing field: nothing was tried
        try:
            login_attempt(
                email=email, client=client_address(self.request), check_credentials=super().clean
            )
        except LoginLocked as locked:
            self.lockout = locked
            raise ValidationError(self.lockout_message, code="locked") from None
        return self.cleaned_data


class ThrottledAdminAuthenticationForm(ThrottledAuthenticationForm, AdminAuthenticationForm):
    """The admin's own login page, throttled alike (it checks passwords too)."""


def _locked_response(response: HttpResponse, form: Any) -> HttpResponse:
    """People read the message on the page; scripts and monitoring see 429 + Retry-After."""
    lockout = getattr(form, "lockout", None)
    if lockout is not None:
        response.status_code = 429
        response["Retry-After"] = str(lockout.minutes * 60)
    return response


class LoginView(auth_views.LoginView):
    """The login page; a locked-out attempt gets the form back with HTTP 429."""

    form_class = ThrottledAuthenticationForm
    redirect_authenticated_user = True

    def form_invalid(self, form: Any) -> HttpResponse:
        return _locked_response(super().form_invalid(form), form)


class LexroomAdminSite(admin.AdminSite):
    """The admin, whose own login page is throttled and answers a lockout like the site's."""

    site_header = _("Lexroom administration")
    site_title = "Lexroom"
    login_form = ThrottledAdminAuthenticationForm

    def login(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        response = super().login(request, extra_context)
        form = (getattr(response, "context_data", None) or {}).get("form")
        return _locked_response(response, form)


class ThrottledPasswordChangeForm(PasswordChangeForm):
    """The current password is a password guess like a sign-in: counted and throttled."""

    lockout: LoginLocked | None = None

    def __init__(self, *args: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.request = request

    def clean_old_password(self) -> str:
        check = super().clean_old_password
        try:
            login_attempt(
                email=self.user.email,
                client=client_address(self.request) if self.request is not None else "",
                check_credentials=check,
            )
        except LoginLocked as locked:
            self.lockout = locked
            raise ValidationError(locked.message, code="locked") from None
        return str(self.cleaned_data["old_password"])


class PasswordChangeView(auth_views.PasswordChangeView):
    """The signed-in user's own password change: throttled like a sign-in, and audited (never
    the hash)."""

    form_class = ThrottledPasswordChangeForm

    def get_form_kwargs(self) -> dict[str, Any]:
        return {**super().get_form_kwargs(), "request": self.request}

    def form_invalid(self, form: Any) -> HttpResponse:
        return _locked_response(super().form_invalid(form), form)

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        user: User = form.user
        audit_record_scoped(
            firm=user.firm, actor=user, action="user.password_change", target=user.email
        )
        return response
