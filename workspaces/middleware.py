"""Every page request of a signed-in user runs inside the user's tenant scope (one transaction).

Pages, forms and ``/admin/`` authenticate by session only: this middleware never reads an
``Authorization`` header. ``/api/…`` is left to DRF, whose views authenticate (token or
session) and then open the same scope (:class:`workspaces.drf.ScopedAPIView`).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.cache import patch_vary_headers

from workspaces.models import User
from workspaces.tenancy import user_scope

API_PREFIX = "/api/"
ADMIN_PREFIX = "/admin/"
# Pages that check a password: no tenant data, and a sign-in attempt must be committed before
# the password is checked so that concurrent guesses count each other (workspaces.auth).
UNSCOPED_PATHS = frozenset({"/login/", "/admin/login/", "/password/"})


class TenantMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info.startswith(API_PREFIX) or request.path_info in UNSCOPED_PATHS:
            return self.get_response(request)
        user = request.user
        if not isinstance(user, User) or not user.is_authenticated:
            return self.get_response(request)
        # An install superuser manages every firm in the admin, and there only.
        every_firm = request.path_info.startswith(ADMIN_PREFIX)
        with user_scope(user, every_firm=every_firm):
            return self.get_response(request)


def activate_for(user: object) -> str:
    """Activate a signed-in user's language (theirs, else their firm's); returns it."""
    language = user.preferred_language if isinstance(user, User) else ""
    language = language or translation.get_language() or "fr"
    translation.activate(language)
    return language


class HtmxVaryMiddleware:
    """Pages answer an htmx request with a fragment of the same URL: every HTML response says
    it varies on ``HX-Request``, so no cache or back button serves one for the other."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.get("Content-Type", "").startswith("text/html"):
            patch_vary_headers(response, ("HX-Request",))
        return response


class LanguageMiddleware:
    """One language per request: the signed-in user's (else their firm's); for anyone else the
    browser's choice among the supported ones, else French (``LANGUAGE_CODE``).

    API requests authenticated by token switch to the token user's language once DRF has
    authenticated them (:class:`workspaces.drf.ScopedAPIView`).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = request.user
        if isinstance(user, User) and user.is_authenticated:
            language = activate_for(user)
        else:
            language = translation.get_language_from_request(request)
            translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()
        try:
            response = self.get_response(request)
        finally:
            language = translation.get_language()
            translation.deactivate()
        patch_vary_headers(response, ("Accept-Language",))
        response.headers.setdefault("Content-Language", language)
        return response
