"""The "Codes" pages: search the French codes at a date, read an article with its versions
and renvois; the "Jurisprudence" pages: search the case-law sites, read a decision, its
conclusions and analysis, save it into a workspace. Session pages for any signed-in user
(public sources: no workspace, no role), except saving, which needs the editor role."""

from __future__ import annotations

import datetime as dt
from typing import Any, cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from core.http import retry_after as retry_after_value
from sources import caselaw
from sources.caselaw import decision_save
from sources.payloads import article_view, code_entry, excerpt
from sources.ranking import codes_search
from sources.selectors import (
    ArticleNotFound,
    CodeNotFound,
    SourceError,
    article_get,
    code_get,
    codes_all,
    codes_embedding_progress,
    snapshot_warning,
    today_paris,
)
from workspaces.models import ROLE_RANK, Role, User
from workspaces.selectors import RoleRequired, workspace_get_for_member, workspace_list_with_roles

MAX_QUERY_CHARS = 1000
RESULTS = 20
CASE_RESULTS, MAX_CASE_OFFSET = 20, 1000
CASE_FIELDS = ("q", "jurisdiction", "classification", "case_number")


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
    progress = codes_embedding_progress()
    if request.htmx and request.GET.get("part") == "embedding":  # type: ignore[attr-defined]
        # The poll while the worker embeds a code: only the progress line.
        return render(request, "sources/codes.html#embedding-progress", {"embedding": progress})
    errors: list[str] = []
    as_of = _as_of(request, errors)
    query = request.GET.get("q", "").strip()[:MAX_QUERY_CHARS]
    wanted = request.GET.get("code", "").strip()
    codes = list(codes_all())
    results: list[dict[str, Any]] = []
    warnings: list[str] = []
    if query and codes:
        try:
            found = codes_search(
                query=query, as_of=as_of, names=[wanted] if wanted else None, limit=RESULTS
            )
        except SourceError as exc:
            errors.append(exc.message)
        else:
            results = [
                {"version": hit.version, "excerpt": excerpt(hit.version.text, query)}
                for hit in found.hits
            ]
            warnings = found.warnings
    context = {
        "page": "codes",
        "codes": [code_entry(code) for code in codes],
        "query": query,
        "wanted": wanted,
        "as_of": as_of,
        "results": results,
        "errors": errors,
        "warnings": warnings,
        "embedding": progress,
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


# --- Jurisprudence: the case-law sites, read live ------------------------------------------


def _date_param(request: HttpRequest, name: str, errors: list[str]) -> dt.date | None:
    raw = request.GET.get(name, "").strip()
    if not raw:
        return None
    try:
        return dt.date.fromisoformat(raw)
    except ValueError:
        errors.append(gettext("%(value)r is not a date (YYYY-MM-DD).") % {"value": raw[:40]})
        return None


def _offset(request: HttpRequest) -> int:
    raw = request.GET.get("offset", "0")
    return min(int(raw), MAX_CASE_OFFSET) if raw.isdecimal() and raw.isascii() else 0


@require_GET
@login_required
def case_law_page(request: HttpRequest) -> HttpResponse:
    errors: list[str] = []
    form = {key: request.GET.get(key, "").strip()[:MAX_QUERY_CHARS] for key in CASE_FIELDS}
    form["jurisdiction"] = form["jurisdiction"] or "CE+TC"
    date_from = _date_param(request, "date_from", errors)
    date_to = _date_param(request, "date_to", errors)
    result = None
    retry_after = None
    if (form["q"] or form["case_number"]) and not errors:
        try:
            query = caselaw.query_checked(
                jurisdiction=form["jurisdiction"],
                text=form["q"],
                classification=form["classification"],
                date_from=date_from,
                date_to=date_to,
                case_number=form["case_number"][:30],
            )
            with caselaw.for_firm(firm_id=_user(request).firm_id):
                result = caselaw.case_law_search(query, offset=_offset(request), limit=CASE_RESULTS)
        except caselaw.CaseLawError as exc:
            errors.append(exc.message)
            retry_after = exc.retry_after
    context = {
        "page": "case_law",
        "form": form,
        "jurisdictions": list(caselaw.JURISDICTIONS),
        "classes": list(caselaw.OPENDATA_CLASSES),
        "result": result,
        "errors": errors,
    }
    response = render(request, "sources/case_law.html", context)
    return _busy(response, retry_after)


def _busy(response: HttpResponse, retry_after: float | None) -> HttpResponse:
    """The page that says the firm's turns at the case-law sites are taken: a 429 with
    Retry-After, so scripts and proxies know when to come back."""
    if retry_after is not None:
        response.status_code = 429
        response["Retry-After"] = retry_after_value(retry_after)
    return response


def _case_id(request: HttpRequest) -> str:
    value = request.GET.get("id", "").strip()[:200]
    try:
        caselaw.id_source(value)
    except caselaw.CaseLawError:
        raise Http404(gettext("No such decision.")) from None
    return value


def _read_or_error(request: HttpRequest, read: Any, key: str, template: str) -> HttpResponse:
    """A case-law read as a page, or the page with the reason (404, 400 or 502)."""
    decision_id = _case_id(request)
    context: dict[str, Any] = {"page": "case_law", "id": decision_id, "kind": key}
    try:
        with caselaw.for_firm(firm_id=_user(request).firm_id):
            body = read(decision_id)
    except caselaw.CaseLawError as exc:
        status = {"not_found": 404, "invalid_arguments": 400}.get(exc.kind, 502)
        context["error"] = exc.message
        return _busy(render(request, template, context, status=status), exc.retry_after)
    context.update(item=body[key], warnings=body.get("warnings", []), cache=body["cache"])
    if key == "decision":
        context["save_to"] = [
            w for w in workspace_list_with_roles(user=_user(request))
            if _rank(getattr(w, "member_role", None)) >= ROLE_RANK[Role.EDITOR]
        ]  # fmt: skip
        context["conclusions_url"] = download_or_none(body[key].get("conclusions_id"))
    return render(request, template, context)


def _rank(role: str | None) -> int:
    return ROLE_RANK[Role(role)] if role in Role.values else 0


def download_or_none(doc_id: str | None) -> str | None:
    return caselaw.download_url(doc_id) if doc_id else None


@require_GET
@login_required
def decision_page(request: HttpRequest) -> HttpResponse:
    return _read_or_error(request, caselaw.decision_get, "decision", "sources/decision.html")


@require_GET
@login_required
def conclusions_page(request: HttpRequest) -> HttpResponse:
    return _read_or_error(request, caselaw.conclusions_get, "conclusions", "sources/case_text.html")


@require_GET
@login_required
def analysis_page(request: HttpRequest) -> HttpResponse:
    return _read_or_error(request, caselaw.analysis_get, "analysis", "sources/case_text.html")


@require_POST
@login_required
def decision_save_view(request: HttpRequest) -> HttpResponse:
    """Save a decision into a workspace where the user is an editor; then its document."""
    user = _user(request)
    decision_id = request.POST.get("id", "").strip()[:200]
    try:
        workspace = workspace_get_for_member(
            user=user, slug=request.POST.get("workspace", "")[:80], min_role=Role.EDITOR
        )
    except RoleRequired:
        raise PermissionDenied(gettext("Saving a decision needs the editor role.")) from None
    try:
        caselaw.id_source(decision_id)
        with caselaw.for_firm(firm_id=user.firm_id):
            saved = decision_save(
                workspace=workspace,
                user=user,
                decision_id=decision_id,
                include_conclusions=request.POST.get("include_conclusions") == "1",
            )
    except caselaw.CaseLawError as exc:
        messages.error(request, exc.message)
        return redirect(f"{reverse('sources:case_law')}")
    note = gettext("Saved as %(ref)s.") if saved.created else gettext("Already saved as %(ref)s.")
    messages.success(request, note % {"ref": saved.document.ref})
    for warning in saved.warnings:
        messages.warning(request, warning)
    return redirect("document_detail", slug=workspace.slug, ref=saved.document.ref)


def _user(request: HttpRequest) -> User:
    return cast(User, request.user)
