"""The compliance tools: scan contracts against the workspace's playbooks, list the flags,
and move a flag through its review (the writing ones wait for approval in the agent)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from pydantic import BaseModel, ConfigDict, Field

from agents.tools.definitions import WORKSPACE_FIELD
from agents.tools.errors import ToolError
from agents.tools.registry import Tool, ToolContext, register
from compliance.models import FlagStatus, Severity
from compliance.scanning import scan_run
from compliance.selectors import (
    FlagNotFound,
    flag_get,
    flag_list,
    playbooks_current,
    playbooks_for_workspace,
)
from compliance.services import ComplianceError, flag_update, scan_create
from documents.models import Document, DocumentStatus
from search.results import UNTRUSTED
from workspaces.models import Role
from workspaces.tenancy import workspace_scope

MAX_FLAGS = 200


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    workspace: str | None = WORKSPACE_FIELD


class ScanInput(_Input):
    contract_id: str | None = Field(
        default=None, description="Scan this contract only (e.g. c04); omit for all.", max_length=32
    )
    playbook: str | None = Field(
        default=None,
        description="A playbook key; omit for every playbook assigned to the workspace.",
        max_length=80,
    )


class ScanReport(BaseModel):
    model_config = ConfigDict(extra="forbid")
    scan_id: int
    playbook: str
    version: int
    status: str
    contracts: int
    flags_raised: int = Field(description="New flags (one already open is not raised twice).")
    not_checked: list[str] = Field(description="Contracts or rules left out, with why.")


class ScanResults(BaseModel):
    model_config = ConfigDict(extra="forbid")
    scans: list[ScanReport]


class ListFlagsInput(_Input):
    status: list[FlagStatus] | None = Field(default=None, description="Default: open, escalated.")
    severity: list[Severity] | None = None
    contract_id: str | None = Field(default=None, max_length=32)
    limit: int = Field(default=50, ge=1, le=MAX_FLAGS)
    offset: int = Field(default=0, ge=0, le=100_000)


class FlagView(BaseModel):
    model_config = ConfigDict(extra="forbid")
    flag_id: int
    contract_id: str
    contract_title: str
    playbook: str
    version: int
    rule: str
    rule_title: str
    severity: str
    status: str
    article: str = Field(description="The cited article's heading; empty: a missing clause.")
    page: int | None
    chunk_id: int | None
    excerpt: str = Field(description=UNTRUSTED)
    reason: str


class FlagList(BaseModel):
    model_config = ConfigDict(extra="forbid")
    flags: list[FlagView]
    total: int
    next_offset: int | None


class UpdateFlagInput(_Input):
    flag_id: int = Field(ge=1)
    status: FlagStatus = Field(description="resolved, dismissed, escalated, or open to reopen.")
    note: str = Field(description="Why (required): kept in the flag's history.", max_length=2000)


def flag_view(flag: Any) -> FlagView:
    return FlagView(
        flag_id=flag.pk,
        contract_id=flag.document.ref,
        contract_title=flag.document.display_title,
        playbook=flag.rule.playbook.key,
        version=flag.rule.playbook.version,
        rule=flag.rule.key,
        rule_title=flag.rule.title,
        severity=flag.severity,
        status=flag.status,
        article=flag.article_ref,
        page=flag.page,
        chunk_id=flag.chunk_id,
        excerpt=flag.excerpt,
        reason=flag.reason,
    )


def _document(workspace: Any, contract_id: str) -> Document:
    document = Document.objects.filter(workspace=workspace, ref=contract_id).first()
    if document is None:
        message = gettext("No contract %(id)s in this workspace.") % {"id": contract_id}
        raise ToolError("not_found", message, {"field": "contract_id"})
    if document.status != DocumentStatus.EMBEDDED:
        message = gettext("%(id)s is still being ingested (or failed): scan it once indexed.")
        raise ToolError("invalid_arguments", message % {"id": contract_id})
    return document


def _scan(context: ToolContext, arguments: ScanInput) -> dict[str, Any]:
    workspace = context.workspace
    assert workspace is not None  # noqa: S101
    with workspace_scope(workspace):
        document = _document(workspace, arguments.contract_id) if arguments.contract_id else None
        playbooks = playbooks_for_workspace(workspace=workspace)
        if arguments.playbook:
            playbooks = list(
                playbooks_current(firm_id=workspace.firm_id).filter(key=arguments.playbook)
            )
        if not playbooks:
            allowed = list(
                playbooks_current(firm_id=workspace.firm_id).values_list("key", flat=True)
            )
            message = gettext("No playbook to scan with: assign one to the workspace, or name one.")
            raise ToolError("invalid_arguments", message, {"field": "playbook", "allowed": allowed})
        scans = [
            scan_create(workspace=workspace, playbook=p, user=context.user, document=document)
            for p in playbooks
        ]
    reports = []
    for scan in scans:
        done = scan_run(scan=scan)
        reports.append(
            ScanReport(
                scan_id=done.pk,
                playbook=done.playbook.key,
                version=done.playbook.version,
                status=done.status,
                contracts=done.documents_done,
                flags_raised=done.flags_raised,
                not_checked=list(done.skipped),
            )
        )
    return ScanResults(scans=reports).model_dump(mode="json")


def _list(context: ToolContext, arguments: ListFlagsInput) -> dict[str, Any]:
    assert context.workspace is not None  # noqa: S101
    statuses = [str(s) for s in (arguments.status or (FlagStatus.OPEN, FlagStatus.ESCALATED))]
    flags = flag_list(
        workspace=context.workspace,
        statuses=statuses,
        severities=[str(s) for s in arguments.severity or []] or None,
        contract_id=arguments.contract_id,
    )
    total = flags.count()
    page = list(flags[arguments.offset : arguments.offset + arguments.limit])
    end = arguments.offset + len(page)
    listing = FlagList(
        flags=[flag_view(f) for f in page], total=total, next_offset=end if end < total else None
    )
    return listing.model_dump(mode="json")


def _update(context: ToolContext, arguments: UpdateFlagInput) -> dict[str, Any]:
    assert context.workspace is not None  # noqa: S101
    try:
        flag = flag_get(workspace=context.workspace, flag_id=arguments.flag_id)
        flag_update(flag=flag, user=context.user, status=arguments.status, note=arguments.note)
    except FlagNotFound:
        message = gettext("No flag %(id)d in this workspace.") % {"id": arguments.flag_id}
        raise ToolError("not_found", message, {"field": "flag_id"}) from None
    except ComplianceError as exc:
        raise ToolError("invalid_arguments", str(exc), {"field": "status"}) from None
    return flag_view(flag_get(workspace=context.workspace, flag_id=flag.pk)).model_dump(mode="json")


register(
    Tool(
        name="scan_contract",
        description="Check contracts against the workspace's playbooks (the firm's positions): "
        "raises flags citing the article for each rule broken. One contract (contract_id) or the "
        "whole workspace. Changes data.",
        input_model=ScanInput,
        output_model=ScanResults,
        handler=_scan,
        min_role=Role.EDITOR,
        read_only=False,
        own_scopes=True,
    )
)
register(
    Tool(
        name="list_flags",
        description="The playbook flags of a workspace, most severe first: contract, rule, "
        "severity, status (open, escalated by default), the cited article with its excerpt, "
        "and why.",
        input_model=ListFlagsInput,
        output_model=FlagList,
        handler=_list,
    )
)
register(
    Tool(
        name="update_flag",
        description="Resolve, dismiss or escalate a flag (or reopen it), with a note saying why; "
        "the flag's history keeps who did what and when. Changes data.",
        input_model=UpdateFlagInput,
        output_model=FlagView,
        handler=_update,
        min_role=Role.EDITOR,
        read_only=False,
    )
)
