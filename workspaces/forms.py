"""Forms of the tenancy pages: a personal access token, the language switch."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.conf import settings
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from workspaces.models import User, Workspace
from workspaces.selectors import workspace_list_for_user

# A token made on the page always expires: a forgotten token on a laptop ends by itself.
# Tokens that never expire stay an operator's decision (`create_token` without --expires-days).
TOKEN_DEFAULT_EXPIRES_DAYS = 90
TOKEN_MAX_EXPIRES_DAYS = 365


class WorkspaceChoiceField(forms.ModelMultipleChoiceField):  # type: ignore[type-arg]
    def label_from_instance(self, obj: Workspace) -> str:
        return f"{obj.title} ({obj.slug})"


class TokenCreateForm(forms.Form):
    """Name, workspaces (among the user's own; none: all of them), read-only, expiry.

    The rules of a token itself (a name, workspaces of the user's firm) stay in
    :func:`workspaces.tokens.token_create`; the view shows its refusals on this form.
    """

    name = forms.CharField(
        label=_("Name"),
        max_length=100,
        help_text=_("What the token is for, e.g. “Claude on my laptop”."),
    )
    workspaces = WorkspaceChoiceField(
        label=_("Workspaces"),
        queryset=Workspace.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("None ticked: every workspace you can open, now and later."),
        error_messages={
            "invalid_choice": _("You can only choose workspaces you are a member of."),
            "invalid_pk_value": _("You can only choose workspaces you are a member of."),
        },
    )
    read_only = forms.BooleanField(
        label=_("Read-only (search and read; no uploads)"), required=False
    )
    expires_days = forms.IntegerField(
        label=_("Expires after (days)"),
        min_value=1,
        max_value=TOKEN_MAX_EXPIRES_DAYS,
        initial=TOKEN_DEFAULT_EXPIRES_DAYS,
    )

    def __init__(self, *args: Any, user: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Only the user's own workspaces: a posted id of any other is an invalid choice.
        field = cast(WorkspaceChoiceField, self.fields["workspaces"])
        field.queryset = workspace_list_for_user(user=user)
        # Set here, not on the class: the request's language is active only now.
        message = gettext("Between 1 and %(max)d days.")
        self.fields["expires_days"].help_text = message % {"max": TOKEN_MAX_EXPIRES_DAYS}


class LanguageForm(forms.Form):
    language = forms.ChoiceField(choices=settings.LANGUAGES)
    next = forms.CharField(required=False)
