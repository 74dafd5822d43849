"""The "Codes" pages: search the French codes at a date, read an article with its versions
and renvois. Session pages for any signed-in user (public law: no workspace, no role)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext
from django.views.decorators.http import require_GET

from sources.payloads import article_view, code_entry, excerpt
from sources.ranking import search_articles
from sources.selectors import (
    ArticleNotFound,
    CodeNotFound,
    SourceError,
    article_get,
    as_of_check,
    code_get,
    codes_all,
    snapshot_warning,
    today_paris,
)

MAX_QUERY_CHARS = 1000
RESULTS = 20


def _as_of(request: HttpRequest, errors: list[str]) -> dt.date:
    raw = request.GET.get("as_of", "").strip()
    if not raw:
        return today_paris()
    try:
        return dt.date.fromisoformat(raw)
    except ValueError:
        errors.append(
            gettext("%(value)r is not a date (YYYY-MM-DD): today is used.") % {"value": raw[:40]}
        )
        return today_paris()


@require_GET
@login_required
def codes_page(request: HttpRequest) -> HttpResponse:
    errors: list[str] = []
    as_of = _as_of(request, errors)
    query = request.GET.get("q", "").strip()[:MAX_QUERY_CHARS]
    wanted = request.GET.get("code", "").strip()
    codes = list(codes_all())
    results: list[dict[str, Any]] = []
    warnings: list[str] = []
    if query and codes:
        try:
            chosen = [code_get(wanted)] if wanted else codes
            for code in chosen if wanted else []:
                as_of_check(code, as_of)
        except SourceError as exc:
            errors.append(exc.message)
        else:
            hits = search_articles(query=query, as_of=as_of, codes=chosen, limit=RESULTS)
            results = [
                {"version": hit.version, "excerpt": excerpt(hit.version.text, query)}
                for hit in hits
            ]
            warnings = [w for w in (snapshot_warning(c, as_of) for c in chosen) if w]
    context = {
        "page": "codes",
        "codes": [code_entry(code) for code in codes],
        "query": query,
        "wanted": wanted,
        "as_of": as_of,
        "results": results,
        "errors": errors,
        "warnings": warnings,
    }
    return render(request, "sources/codes.html", context)


@require_GET
@login_required
def article_page(request: HttpRequest, code: str, number: str) -> HttpResponse:
    errors: list[str] = []
    as_of = _as_of(request, errors)
    include_repealed = request.GET.get("repealed") == "1"
    try:
        legal_code = code_get(code)
    except CodeNotFound:
        raise Http404(gettext("No such code.")) from None
    context: dict[str, Any] = {"page": "codes", "code": legal_code, "as_of": as_of}
    try:
        version = article_get(
            code=legal_code, number=number, as_of=as_of, include_repealed=include_repealed
        )
    except ArticleNotFound as exc:
        context.update(missing=exc.message, details=exc.details, number=number, errors=errors)
        return render(request, "sources/article.html", context, status=404)
    except SourceError as exc:
        context.update(missing=exc.message, details=exc.details, number=number, errors=errors)
        return render(request, "sources/article.html", context, status=400)
    warning = snapshot_warning(legal_code, as_of)
    context.update(
        article=article_view(version, as_of),
        version=version,
        errors=errors,
        warnings=[warning] if warning else [],
    )
    return render(request, "sources/article.html", context)
