"""Response headers every dynamic response carries: no caching, no powerful browser features.

Sits after WhiteNoise in ``MIDDLEWARE``: static files are answered above it and keep their
long cache lifetimes; everything that reaches a view (pages, originals, exports, the API,
error pages) is tenant data or may become so, so no browser or proxy may store it.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase
from django.utils.cache import patch_cache_control

# Features no page of Lexroom uses: a script injected into a page cannot switch them on.
# The clipboard is not listed: the tokens page copies snippets with it.
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "autoplay",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "usb",
        "serial",
        "hid",
        "bluetooth",
        "screen-wake-lock",
        "xr-spatial-tracking",
        "browsing-topics",
    )
)


class SecurityHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        # A shared computer's back button or disk cache must not show a firm's documents
        # after log-out; "private" alone would still let the browser keep them.
        if "no-store" not in response.get("Cache-Control", ""):
            patch_cache_control(response, no_store=True, private=True)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS_POLICY)
        return response
