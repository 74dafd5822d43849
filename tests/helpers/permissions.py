"""The permission matrix's credential kinds and the URLconf's routes, which the matrix
(tests/test_permission_matrix.py) and the OpenAPI fuzz (tests/lab/agents) both walk."""

from __future__ import annotations

from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver

CREDENTIALS = (
    "anonymous",
    "owner",
    "editor",
    "viewer",
    "outsider",  # same firm, not a member
    "firm_admin",
    "foreigner",  # another firm's user
    "token_rw",  # the owner's tokens from here on
    "token_ro",
    "token_other_ws",  # read-write, restricted to another workspace of the owner
    "token_expired",
    "token_revoked",
)


def url_patterns() -> list[tuple[str, URLPattern]]:
    """Every pattern of the URLconf, with its full route as written."""

    def walk(patterns: list[Any], prefix: str) -> list[tuple[str, URLPattern]]:
        found = []
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                found += walk(pattern.url_patterns, prefix + str(pattern.pattern))
            else:
                found.append((prefix + str(pattern.pattern), pattern))
        return found

    return walk(get_resolver().url_patterns, "")
