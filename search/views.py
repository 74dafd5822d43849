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
    ignore=<field>                 repeated: a condition read from q left out (a chip's link)
    interpret=0                    q ranked as typed, no condition read from it
    weak=1                         with q: also the contracts that matched only weakly

Empty values are ignored (an empty date input submits ``signed_after=``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any, cast

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from core.embeddings import ModelUnavailable, embedding_model_name
from search.chips import interpretation_links
from search.errors import InvalidSearchArguments, ResultNotFound
from search.filters import SearchFilters, parse_filters
from search.learning import (
    AdapterNotFound,
    adapter_review,
    search_adapter_approve,
    search_adapter_roll_back,
)
from search.paging import DEFAULT_LIMIT, Page
from search.results import SearchResults
from search.selectors import (
    describe_data_room,
    ratings_for_results,
    ratings_last_minute,
    search_data_room,
)
from search.services import judgment_set
from workspaces.models import User, Workspace
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
    interpret: bool = True  # read conditions from the query (interpret=0 turns it off)
    ignore: tuple[str, ...] = ()  # fields not read from the query
    include_weak: bool = False  # weak=1: the contracts that matched only weakly too


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
    weak = params.get("weak", "").strip()
    if weak not in {"", "0", "1"}:
        message = gettext("weak must be 1 or 0, not “%(value)s”.")
        raise InvalidSearchArguments(message % {"value": weak})
    filters = parse_filters(raw)
    return SearchRequest(
        query=selected["q"].strip() or None,
        filters=filters,
        page=Page(limit=PAGE_SIZE, offset=_integer("offset", offset) if offset else 0),
        filtered=filters != SearchFilters(),
        interpret=params.get("interpret", "").strip() != "0",
        ignore=tuple(selected["ignore"]),
        include_weak=weak == "1",
    )


def _page_url(params: QueryDict, offset: int, weak: str | None = None) -> str:
    query = params.copy()
    query.setlist("offset", [str(offset)])
    if weak is not None:  # the weak matches shown or hidden: from the first result again
        query.setlist("weak", [weak])
    return "?" + query.urlencode()


@login_required
def search(request: HttpRequest, slug: str) -> HttpResponse:
    workspace = workspace_get_for_member(user=cast(User, request.user), slug=slug)
    error: InvalidSearchArguments | None = None
    unavailable: ModelUnavailable | None = None
    results: SearchResults | None = None
    try:
        asked = parse_search_request(request.GET)
        if asked.query or asked.filtered:
            results = search_data_room(
                workspace=workspace,
                query=asked.query,
                filters=asked.filters,
                page=asked.page,
                interpret_query=asked.interpret,
                not_interpreted=asked.ignore,
                include_weak=asked.include_weak,
            )
    except InvalidSearchArguments as exc:
        error = exc
    except ModelUnavailable as exc:  # a model or Ollama the firm's IT must fix, not the query
        unavailable = exc
    past_the_end = bool(results and results.offset > 0 and results.offset >= results.total_results)
    user = cast(User, request.user)
    context: dict[str, Any] = {
        "workspace": workspace,
        "results": results,
        "error": error,
        "unavailable": unavailable,
        "allowed": _allowed_values(error),
        "past_the_end": past_the_end,
        "selected": form_state(request.GET),
        "next_url": (
            _page_url(request.GET, results.next_offset)
            if results and results.next_offset is not None
            else None
        ),
        "first_url": _page_url(request.GET, 0),
        "weak_url": _page_url(request.GET, 0, weak="1"),
        "strong_url": _page_url(request.GET, 0, weak="0"),
        "weak_shown": request.GET.get("weak", "").strip() == "1",
        "ratings": _ratings(workspace, user, results),
        "back": request.GET.urlencode(),
        **interpretation_links(request.GET, results),
    }
    # "Load more" (htmx) gets the next hits only; an error is a full page (htmx swaps no 400).
    if request.htmx and error is None and unavailable is None:  # type: ignore[attr-defined]
        return render(request, "search/search.html#hits-page", context)
    context["room"] = describe_data_room(workspace=workspace)
    status = 400 if error else 503 if unavailable else 200
    return render(request, "search/search.html", context, status=status)


def _ratings(workspace: Workspace, user: User, results: SearchResults | None) -> dict[int, bool]:
    if results is None or not results.query:
        return {}
    chunk_ids = [a.chunk_id for hit in results.results for a in hit.relevant_articles]
    return ratings_for_results(
        workspace=workspace, user=user, query=results.query, chunk_ids=chunk_ids
    )


RATING_VALUES = {"1": True, "0": False, "": None}


@login_required
@require_POST
def rate(request: HttpRequest, slug: str) -> HttpResponse:
    """A result's relevant / not relevant button (``relevant`` 1, 0, or empty to remove):
    htmx gets the buttons again, a plain form post goes back to the search (``back``)."""
    user = cast(User, request.user)
    workspace = workspace_get_for_member(user=user, slug=slug)
    raw_relevant = request.POST.get("relevant", "").strip()
    raw_chunk = request.POST.get("chunk_id", "").strip()
    # ASCII digits, at most a bigint's 19 ("²".isdigit() is true, and int() refuses 5,000 digits).
    if raw_relevant not in RATING_VALUES or not re.fullmatch(r"[0-9]{1,19}", raw_chunk):
        message = gettext("relevant must be 1, 0 or empty, and chunk_id a whole number.")
        return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
    limit = settings.LEXROOM_RATINGS_PER_MINUTE
    if limit and ratings_last_minute(workspace=workspace, user=user) >= limit:
        message = gettext("Too many ratings (at most %(limit)d a minute): wait a moment.")
        return HttpResponse(
            message % {"limit": limit}, status=429, content_type="text/plain; charset=utf-8"
        )
    query = request.POST.get("q", "")
    try:
        chunk, _ = judgment_set(
            workspace=workspace,
            user=user,
            query=query,
            chunk_id=int(raw_chunk),
            relevant=RATING_VALUES[raw_relevant],
        )
    except InvalidSearchArguments as exc:
        return HttpResponse(exc.message, status=400, content_type="text/plain; charset=utf-8")
    except ResultNotFound:
        raise Http404(gettext("No such article in this workspace.")) from None
    if request.htmx:  # type: ignore[attr-defined]
        context = {
            "workspace": workspace,
            "article_id": chunk.pk,
            "rating": RATING_VALUES[raw_relevant],
            "query": query,
            "back": request.POST.get("back", ""),
        }
        return render(request, "search/search.html#rating", context)
    # Back to the same search: only its query string is taken from the form, re-encoded.
    back = QueryDict(request.POST.get("back", "")).urlencode()
    target = reverse("search", args=[workspace.slug]) + (f"?{back}" if back else "")
    return HttpResponseRedirect(f"{target}#article-{chunk.pk}")


def form_state(params: QueryDict) -> dict[str, Any]:
    """The form as submitted (shown again as is, so a user can fix what did not parse)."""
    state: dict[str, Any] = {"q": params.get("q", "")}
    for name in ("party", "type", "clause", "law_in", "law_not_in", "ignore"):
        state[name] = _values(params, name)
    state.update({name: params.get(name, "") for name in DATE_PARAMS})
    state["interpret"] = params.get("interpret", "")
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


# --- The firm's search adapter: a firm admin's review ---------------------------------------


@login_required
def learning(request: HttpRequest) -> HttpResponse:
    """The candidate adapter's held-out report and the rated queries it changes most, the
    adapter in use, approve and roll back. Firm admins only; anyone else: 404."""
    user = cast(User, request.user)
    model = embedding_model_name()
    unavailable: ModelUnavailable | None = None
    try:
        review = adapter_review(user=user, model=model)
    except AdapterNotFound:
        raise Http404(gettext("No such page.")) from None
    except ModelUnavailable as exc:  # the preview embeds queries; the rest still shows
        unavailable = exc
        review = adapter_review(user=user, model=model, preview=False)
    context = {
        "review": review,
        "unavailable": unavailable,
        "report": _fit_report(review.candidate.metrics) if review.candidate else [],
    }
    return render(request, "search/learning.html", context)


def _fit_report(metrics: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """(what, before, after) rows of a fit's summary (its keys hold "@": no template access)."""
    return [
        (
            gettext("nDCG@10 on held-out queries (%(count)s)")
            % {"count": metrics.get("held_out_queries", "?")},
            metrics.get("held_out_ndcg@10_before"),
            metrics.get("held_out_ndcg@10_after"),
        ),
        (
            gettext("nDCG@10 on training queries (%(count)s)")
            % {"count": metrics.get("train_queries", "?")},
            metrics.get("train_ndcg@10_before"),
            metrics.get("train_ndcg@10_after"),
        ),
    ]


@login_required
@require_POST
def learning_approve(request: HttpRequest, adapter_id: int) -> HttpResponse:
    try:
        adapter = search_adapter_approve(user=cast(User, request.user), adapter_id=adapter_id)
    except AdapterNotFound:
        raise Http404(gettext("No such adapter.")) from None
    message = gettext("Adapter #%(id)d approved: searches of the firm now use it.")
    messages.success(request, message % {"id": adapter.pk})
    return HttpResponseRedirect(reverse("search_learning"))


@login_required
@require_POST
def learning_roll_back(request: HttpRequest) -> HttpResponse:
    try:
        result = search_adapter_roll_back(
            user=cast(User, request.user), model=embedding_model_name()
        )
    except AdapterNotFound:
        raise Http404(gettext("No such page.")) from None
    if result is None:
        messages.info(request, gettext("No adapter is in use: nothing to roll back."))
    elif result[1] is None:
        message = gettext("Adapter #%(id)d withdrawn: searches use no adapter.")
        messages.success(request, message % {"id": result[0].pk})
    else:
        message = gettext("Adapter #%(id)d withdrawn: searches use adapter #%(previous)d again.")
        messages.success(request, message % {"id": result[0].pk, "previous": result[1].pk})
    return HttpResponseRedirect(reverse("search_learning"))
