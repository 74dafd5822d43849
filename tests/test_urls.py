"""The root URLconf: each app's URLs included once (a second include doubled every route of
the permission matrix and answered nothing the first did not)."""

from __future__ import annotations

from collections import Counter

from django.urls import URLResolver, get_resolver


def test_no_urlconf_is_included_twice():
    included = Counter(
        (str(entry.pattern), entry.urlconf_name.__name__)
        for entry in get_resolver().url_patterns
        if isinstance(entry, URLResolver) and not isinstance(entry.urlconf_name, list)
    )
    assert [urls for urls, count in included.items() if count > 1] == []
