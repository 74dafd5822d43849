"""The search page's chips: the conditions read from the query, each with the link that
searches again without it (``ignore=<field>``), and the links that turn the reading off
(``interpret=0``) and on again. Every link keeps the rest of the search and starts at its
first result."""

from __future__ import annotations

from typing import Any

from django.http import QueryDict

from search.results import SearchResults


def _url(params: QueryDict, **changes: list[str] | None) -> str:
    query = params.copy()
    query.pop("offset", None)
    for name, values in changes.items():
        if values is None:
            query.pop(name, None)
        else:
            query.setlist(name, values)
    return "?" + query.urlencode()


def interpretation_links(params: QueryDict, results: SearchResults | None) -> dict[str, Any]:
    """``chips`` (label, words, field, remove_url), ``literal_url`` (the query as typed) and
    ``interpret_url`` (reading on again, when it was turned off), for the template."""
    ignored = [value for value in params.getlist("ignore") if value.strip()]
    chips = [
        {
            "field": read.field,
            "label": read.label,
            "words": read.words,
            "remove_url": _url(params, ignore=[*ignored, read.field]),
        }
        for read in (results.interpreted_filters if results else [])
    ]
    turned_off = params.get("interpret", "").strip() == "0"
    return {
        "chips": chips,
        "literal_url": _url(params, interpret=["0"]),
        "interpret_url": _url(params, interpret=None, ignore=None) if turned_off else None,
    }
