"""The flags page of a workspace: the playbooks' flags, most severe first, filtered from the
URL; their review (resolve, dismiss, escalate, reopen, with a note) for editors and owners; a
scan of the whole workspace; the listed flags as CSV.

URL encoding (GET, so a listing can be shared and exported as shown)::

    status=<open|resolved|dismissed|escalated>   repeated; none given: open and escalated
    severity=<info|low|medium|high|critical>     repeated
    contract=<ref>                               one contract (c04)
    filtered=1                                   the form was sent: no status means every status

Unknown values are left out, and said so above the table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_POST

from compliance.export import csv_response, xlsx_response
from compliance.models import Flag, FlagStatus, Severity
from compliance.scanning import scan_run
from compliance.selectors import (
    flag_contracts,
    flag_get,
    flag_list,
    playbooks_current,
    playbooks_for_workspace,
    scan_latest,
)
from compliance.services import (
    TRANSITIONS,
    ComplianceError,
    flag_update,
    scan_create,
    workspace_playbooks_set,
)
from compliance.tasks import scans_run_later
from workspaces.models import Role, User, Workspace
from workspaces.selectors import RoleRequired, workspace_get_for_member, workspace_member_role
from workspaces.tasks import live_clusters
from workspaces.tenancy import workspace_scope

MAX_ROWS = 500  # on the page; the CSV has them all
DEFAULT_STATUSES = [FlagStatus.OPEN.value, FlagStatus.ESCALATED.value]
REVIEWERS = (Role.OWNER, Role.EDITOR)
# The review buttons, by the status each leads to (shown where TRANSITIONS allows it).
ACTIONS = {
    FlagStatus.RESOLVED: _("Resolve"),
    FlagStatus.DISMISSED: _("Dismiss"),
    FlagStatus.ESCALATED: _("Escalate"),
    FlagStatus.OPEN: _("Reopen"),
}
# Spreadsheets run a cell that starts with one of these as a formula (CSV injection).


@dataclass(frozen=True)
class FlagFilters:
    statuses: list[str]
    severities: list[str]
    contract: str
    problems: list[str]

    def query(self) -> str:
        params = QueryDict(mutable=True)
        params.setlist("status", self.statuses)
        params.setlist("severity", self.severities)
        if self.contract:
            params["contract"] = self.contract
        params["filtered"] = "1"
        return params.urlencode()


def _chosen(params: QueryDict, name: str, allowed: list[str], problems: list[str]) -> list[str]:
    values = [value.strip() for value in params.getlist(name) if value.strip()]
    unknown = [value for value in values if value not in allowed]
    if unknown:
        message = gettext("Left out: %(name)s %(values)s (allowed: %(allowed)s).")
        problems.append(
            message
            % {"name": name, "values": ", ".join(unknown)[:200], "allowed": ", ".join(allowed)}
        )
    return [value for value in values if value in allowed]


def parse_filters(params: QueryDict) -> FlagFilters:
    """The one reader of the page's URL (module docstring)."""
    problems: list[str] = []
    statuses = _chosen(params, "status", FlagStatus.values, problems)
    if not statuses and "filtered" not in params and "status" not in params:
        statuses = list(DEFAULT_STATUSES)
    severities = _chosen(params, "severity", Severity.values, problems)
    return FlagFilters(statuses, severities, params.get("contract", "").strip()[:32], problems)


def _listed(workspace: Workspace, filters: FlagFilters) -> Any:
    return flag_list(
        workspace=workspace,
        statuses=filters.statuses or None,
        severities=filters.severities or None,
        contract_id=filters.contract or None,
    )


def _role(user: User, workspace: Workspace) -> str | None:
    # workspace_get_for_member read the user's role with the workspace (no second query).
    return workspace_member_role(user=user, workspace=workspace)


def _actions(flag: Flag) -> list[tuple[str, str]]:
    allowed = TRANSITIONS.get(FlagStatus(flag.status), set())
    return [(str(status), str(label)) for status, label in ACTIONS.items() if status in allowed]


def _row(flag: Flag, can_review: bool) -> dict[str, Any]:
    return {"flag": flag, "actions": _actions(flag) if can_review else []}


@login_required
@require_GET
def flags(request: HttpRequest, slug: str) -> HttpResponse:
    """The flags of the workspace; an htmx request (the filter form) gets the table only."""
    user = cast(User, request.user)
    workspace = workspace_get_for_member(user=user, slug=slug)
    filters = parse_filters(request.GET)
    role = _role(user, workspace)
    can_review = role in REVIEWERS
    listed = _listed(workspace, filters)
    total = listed.count()
    context: dict[str, Any] = {
        "workspace": workspace,
        "filters": filters,
        "rows": [_row(flag, can_review) for flag in listed[:MAX_ROWS]],
        "total": total,
        "truncated": total > MAX_ROWS,
        "can_review": can_review,
        "back": filters.query(),
    }
    if request.htmx and request.GET.get("part") == "scan":  # type: ignore[attr-defined]
        context["scan"] = scan_latest(workspace=workspace)
        return render(request, "compliance/flags.html#scan-status", context)
    if request.htmx:  # type: ignore[attr-defined]
        return render(request, "compliance/flags.html#flag-table", context)
    context.update(
        {
            "statuses": FlagStatus.choices,
            "severities": Severity.choices,
            "contracts": flag_contracts(workspace=workspace),
            "playbooks": playbooks_for_workspace(workspace=workspace),
            "firm_playbooks": (
                list(playbooks_current(firm_id=workspace.firm_id)) if role == Role.OWNER else []
            ),
            "scan": scan_latest(workspace=workspace),
        }
    )
    return render(request, "compliance/flags.html", context)


def _editor_workspace(request: HttpRequest, slug: str) -> tuple[User, Workspace]:
    user = cast(User, request.user)
    return user, workspace_get_for_member(user=user, slug=slug, min_role=Role.EDITOR)


def _list_url(workspace: Workspace, back: str, anchor: str = "") -> str:
    # Only the list's query string is taken from the form, re-encoded.
    query = QueryDict(back).urlencode()
    return reverse("flags", args=[workspace.slug]) + (f"?{query}" if query else "") + anchor


@login_required
@require_POST
def flag_review(request: HttpRequest, slug: str, flag_id: int) -> HttpResponse:
    """A flag moved to ``status`` with a ``note``: htmx gets the row again, a plain form
    goes back to the list (``back``, its query string)."""
    try:
        user, workspace = _editor_workspace(request, slug)
    except RoleRequired as exc:
        return HttpResponse(str(exc), status=403, content_type="text/plain; charset=utf-8")
    back = request.POST.get("back", "")
    with workspace_scope(workspace):  # the request's scope narrowed to this workspace
        flag = flag_get(workspace=workspace, flag_id=flag_id)
        try:
            flag_update(
                flag=flag,
                user=user,
                status=request.POST.get("status", ""),
                note=request.POST.get("note", ""),
            )
        except ComplianceError as exc:
            if request.htmx:  # type: ignore[attr-defined]
                # htmx swaps no 400: the row comes back with the message, where it was typed.
                context = {
                    "workspace": workspace,
                    "row": _row(flag, True),
                    "back": back,
                    "can_review": True,
                }
                context["row_error"] = str(exc)
                return render(request, "compliance/flags.html#flag-row", context)
            return HttpResponse(str(exc), status=400, content_type="text/plain; charset=utf-8")
        flag = flag_get(workspace=workspace, flag_id=flag_id)
    if request.htmx:  # type: ignore[attr-defined]
        context = {
            "workspace": workspace,
            "row": _row(flag, True),
            "back": back,
            "can_review": True,
        }
        return render(request, "compliance/flags.html#flag-row", context)
    messages.success(
        request, gettext("Flag updated: %(status)s.") % {"status": flag.get_status_display()}
    )
    return HttpResponseRedirect(_list_url(workspace, back, f"#flag-{flag.pk}"))


@login_required
@require_POST
def flags_scan(request: HttpRequest, slug: str) -> HttpResponse:
    """Check every contract of the workspace against its playbooks: in the worker when one
    runs (the page follows its progress), else here (seconds for a few hundred contracts,
    from what ingestion stored); then back to the list."""
    try:
        user, workspace = _editor_workspace(request, slug)
    except RoleRequired as exc:
        return HttpResponse(str(exc), status=403, content_type="text/plain; charset=utf-8")
    with workspace_scope(workspace):
        playbooks = playbooks_for_workspace(workspace=workspace)
        scans = [scan_create(workspace=workspace, playbook=p, user=user) for p in playbooks]
    if not scans:
        messages.error(
            request,
            gettext(
                "No playbook is assigned to this workspace: its owner or a firm admin chooses "
                "them above."
            ),
        )
    if scans and live_clusters():
        scans_run_later(scans=scans, language=translation.get_language())
        messages.info(request, gettext("Scan queued: its progress shows below."))
        return HttpResponseRedirect(_list_url(workspace, request.POST.get("back", "")))
    for scan in scans:  # no worker running: checked here (seconds, from what is stored)
        done = scan_run(scan=scan)
        message = ngettext(
            "Scan with %(playbook)s v%(version)d: %(status)s, %(flags)d new flag.",
            "Scan with %(playbook)s v%(version)d: %(status)s, %(flags)d new flags.",
            done.flags_raised,
        )
        messages.info(
            request,
            message
            % {
                "playbook": done.playbook.title,
                "version": done.playbook.version,
                "status": done.get_status_display(),
                "flags": done.flags_raised,
            },
        )
    return HttpResponseRedirect(_list_url(workspace, request.POST.get("back", "")))


@login_required
@require_POST
def flags_playbooks(request: HttpRequest, slug: str) -> HttpResponse:
    """The playbooks the workspace is checked against (the page's checkboxes): its owners and
    the firm's admins choose them; then back to the list."""
    user = cast(User, request.user)
    try:
        workspace = workspace_get_for_member(user=user, slug=slug, min_role=Role.OWNER)
    except RoleRequired as exc:
        return HttpResponse(str(exc), status=403, content_type="text/plain; charset=utf-8")
    with workspace_scope(workspace):
        try:
            keys = workspace_playbooks_set(
                workspace=workspace, keys=request.POST.getlist("playbook"), user=user
            )
        except ComplianceError as exc:
            return HttpResponse(str(exc), status=400, content_type="text/plain; charset=utf-8")
    if keys:
        messages.success(
            request, gettext("Playbooks checked: %(keys)s.") % {"keys": ", ".join(keys)}
        )
    else:
        messages.info(request, gettext("No playbook is checked in this workspace any more."))
    return HttpResponseRedirect(_list_url(workspace, request.POST.get("back", "")))


@login_required
@require_GET
def flags_export(request: HttpRequest, slug: str, fmt: str = "csv") -> HttpResponse:
    """The listed flags (the page's filters), as CSV or XLSX, for the client report."""
    workspace = workspace_get_for_member(user=cast(User, request.user), slug=slug)
    flags = _listed(workspace, parse_filters(request.GET)).iterator(chunk_size=500)
    name = f"flags-{workspace.slug}"
    return xlsx_response(flags, name) if fmt == "xlsx" else csv_response(flags, name)
