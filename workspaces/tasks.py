"""Background work: one helper to enqueue, one runner that sets the tenant first.

Tasks receive ids (always the workspace id), never model instances, and are enqueued only
once the surrounding transaction commits, so a worker never sees a row that is not there.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django_q.tasks import async_task

from workspaces.models import Workspace
from workspaces.tenancy import tenant_scope

RUNNER = "workspaces.tasks.run_tenant_task"


def _resolve(path: str) -> Callable[..., Any]:
    module_name, _, attribute = path.rpartition(".")
    function: Callable[..., Any] = getattr(importlib.import_module(module_name), attribute)
    return function


def enqueue(function_path: str, *, workspace_id: int, **kwargs: Any) -> None:
    """Queue ``function_path(workspace_id=…, **kwargs)`` after the current transaction commits."""
    _resolve(function_path)  # fail now, in the caller, on a typo
    task_name = kwargs.pop("task_name", None)

    def _send() -> None:
        async_task(RUNNER, function_path, workspace_id, kwargs, task_name=task_name)

    transaction.on_commit(_send)


def run_tenant_task(function_path: str, workspace_id: int, kwargs: dict[str, Any]) -> Any:
    """Worker side: scope the transaction to the task's workspace, then call the service."""
    workspace = Workspace.objects.get(pk=workspace_id)
    with tenant_scope(workspace_ids=(workspace.pk,), firm_id=workspace.firm_id):
        return _resolve(function_path)(workspace_id=workspace_id, **kwargs)
