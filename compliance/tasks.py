"""Scans started on the flags page run in the worker when one is running (live progress on
the page). Like the agent's task, this one opens no scope around the scan: the scan commits
each contract's flags with its progress, which an outer transaction would hold back."""

from __future__ import annotations

from django.utils import translation

from compliance.models import Scan, ScanStatus
from compliance.scanning import scan_run
from workspaces.models import Workspace
from workspaces.tasks import enqueue
from workspaces.tenancy import workspace_scope


def scans_run_later(*, scans: list[Scan], language: str) -> None:
    """Queue each scan once the current transaction has committed."""
    for scan in scans:
        enqueue(
            scan_task,
            workspace_id=scan.workspace_id,
            scoped=False,
            task_name=f"scan-{scan.pk}",
            scan_id=scan.pk,
            language=language,
        )


def scan_task(*, workspace_id: int, scan_id: int, language: str) -> str:
    workspace = Workspace.objects.get(pk=workspace_id)
    with workspace_scope(workspace):
        scan = Scan.objects.select_related("workspace", "playbook").get(
            pk=scan_id, workspace=workspace
        )
    if scan.status != ScanStatus.QUEUED:
        return str(scan.status)  # delivered twice: the first delivery ran it
    with translation.override(language):
        return str(scan_run(scan=scan).status)
