"""The search page: a query and filters in the URL, results exactly as search_data_room
returns them, exclusions in their own sections.

URL encoding (GET, so a search can be shared and the back button works)::

    q=<text>                       the query (optional; without it, every passing contract)
    party=<entity id>              repeated: contracts with any of these parties
    type=<contract type>           repeated
    clause=<clause type key>       repeated: contracts with an article of any of these types
    law_in=<law>, law_not_in=<law> repeated: governing law in / not in
    signed_after=, signed_before=  YYYY-MM-DD, inclusive
    ends_after=, ends_before=      YYYY-MM-DD, inclusive (effective end, after amendments)
    offset=<n>                     first result shown ("load more")

Empty values are ignored (an empty date input submits ``signed_after=``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any, cast

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.utils.translation import gettext

from search.errors import InvalidSearchArguments
from search.filters import SearchFilters, parse_filters
from search.paging import DEFAULT_LIMIT, Page
from search.results import SearchResults
from search.selectors import describe_data_room, search_data_room
from workspaces.models import User
from workspaces.selectors import workspace_get_for_member

PAGE_SIZE = DEFAULT_LIMIT  # results per page and per "load more"
DATE_PARAMS = {
    "signed_after": ("signature_date", "after"),
    "signed_before": ("signature_date", "before"),
    "ends_after": ("end_date", "after"),
    "ends_before": ("end_date", "before"),
}


@dataclass(frozen=True)
class SearchRequest:
    """What the URL asks for, validated: the arguments of search_data_room."""

    query: str | None
    filters: SearchFilters
    page: Page
    filtered: bool  # any filter set (a bare page lists nothing until asked)


def _values(params: QueryDict, name: str) -> list[str]:
    return [value.strip() for value in params.getlist(name) if value.strip()]


def _integer(name: str, raw: str) -> int:
    try:
        return int(raw)
    except ValueError:
        message = gettext("%(name)s must be a whole number, not “%(value)s”.")
        raise InvalidSearchArguments(message % {"name": name, "value": raw}) from None


def _date(name: str, raw: str) -> str:
    try:
        return date.fromisoformat(raw).isoformat()
    except ValueError:
        message = gettext("%(name)s must be a date as YYYY-MM-DD, not “%(value)s”.")
        raise InvalidSearchArguments(message % {"name": name, "value": raw}) from None


def parse_search_request(params: QueryDict) -> SearchRequest:
    """The one reader of the search URL (module docstring); raises InvalidSearchArguments."""
    selected = form_state(params)
    raw: dict[str, Any] = {
        "entity_ids": [_integer("party", value) for value in selected["party"]],
        "contract_types": selected["type"],
        "clause_types": selected["clause"],
    }
    if selected["law_in"] or selected["law_not_in"]:
        raw["governing_law"] = {"in": selected["law_in"], "not_in": selected["law_not_in"]}
    for name, (filter_name, bound) in DATE_PARAMS.items():
        if selected[name]:
            raw.setdefault(filter_name, {})[bound] = _date(name, selected[name])
    offset = params.get("offset", "").strip()
    filters = parse_filters(raw)
    return SearchRequest(
        query=selected["q"].strip() or None,
        filters=filters,
        page=Page(limit=PAGE_SIZE, offset=_integer("offset", offset) if offset else 0),
        filtered=filters != SearchFilters(),
    )


def _page_url(params: QueryDict, offset: int) -> str:
    query = params.copy()
    query.setlist("offset", [str(offset)])
    return "?" + query.urlencode()


@login_required
def search(request: HttpRequest, slug: str) -> HttpResponse:
    workspace = workspace_get_for_member(user=cast(User, request.user), slug=slug)
    error: InvalidSearchArguments | None = None
    results: SearchResults | None = None
    try:
        asked = parse_search_request(request.GET)
        if asked.query or asked.filtered:
            results = search_data_room(
                workspace=workspace, query=asked.query, filters=asked.filters, page=asked.page
            )
    except InvalidSearchArguments as exc:
        error = exc
    past_the_end = bool(results and results.offset > 0 and results.offset >= results.total_results)
    context: dict[str, Any] = {
        "workspace": workspace,
        "results": results,
        "error": error,
        "allowed": _allowed_values(error),
        "past_the_end": past_the_end,
        "selected": form_state(request.GET),
        "next_url": (
            _page_url(request.GET, results.next_offset)
            if results and results.next_offset is not None
            else None
        ),
        "first_url": _page_url(request.GET, 0),
    }
    # "Load more" (htmx) gets the next hits only; an error is a full page (htmx swaps no 400).
    if request.htmx and error is None:  # type: ignore[attr-defined]
        return render(request, "search/search.html#hits-page", context)
    context["room"] = describe_data_room(workspace=workspace)
    return render(request, "search/search.html", context, status=400 if error else 200)


def form_state(params: QueryDict) -> dict[str, Any]:
    """The form as submitted (shown again as is, so a user can fix what did not parse)."""
    state: dict[str, Any] = {"q": params.get("q", "")}
    for name in ("party", "type", "clause", "law_in", "law_not_in"):
        state[name] = _values(params, name)
    state.update({name: params.get(name, "") for name in DATE_PARAMS})
    return state


def _allowed_values(error: InvalidSearchArguments | None) -> list[str]:
    """The allowed values an error names, as text (entities by name)."""
    if error is None:
        return []
    allowed = error.details.get("allowed") or []
    return [
        f"{value['name']} ({value['entity_id']})" if isinstance(value, dict) else str(value)
        for value in allowed
    ]
