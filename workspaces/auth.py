"""Sign-in pages: the user's own password change, audited."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import views as auth_views
from django.http import HttpResponse

from workspaces.audit import audit_record_scoped
from workspaces.models import User


class PasswordChangeView(auth_views.PasswordChangeView):
    """The signed-in user's own password change, with an audit row (never the hash)."""

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        user: User = form.user
        audit_record_scoped(
            firm=user.firm, actor=user, action="user.password_change", target=user.email
        )
        return response
