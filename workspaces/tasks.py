"""Background work: one helper to enqueue, one runner that sets the tenant first.

Tasks receive ids (always the workspace id), never model instances, and are enqueued only
once the surrounding transaction commits, so a worker never sees a row that is not there.
Every task of the product is queued through :func:`enqueue` (``tests/test_layering.py``
refuses ``django_q.tasks`` anywhere else), so each one names its workspace the same way and
the fair queue (``workspaces.broker``) gives it its firm's turn.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.db import transaction
from django.utils import timezone, translation
from django_q.brokers import get_broker
from django_q.conf import Conf
from django_q.models import OrmQ
from django_q.status import Stat, Status
from django_q.tasks import async_task

from workspaces.models import Workspace
from workspaces.tenancy import workspace_scope

RUNNER = "workspaces.tasks.run_tenant_task"


def _resolve(path: str) -> Callable[..., Any]:
    module_name, _, attribute = path.rpartition(".")
    function: Callable[..., Any] = getattr(importlib.import_module(module_name), attribute)
    return function


def task_path(function: Callable[..., Any]) -> str:
    """The dotted path a worker imports ``function`` by; refuses what it could not import.

    Checked when queued, in the caller: a nested function, a lambda or a method would
    otherwise only fail later, in the worker.
    """
    path = f"{function.__module__}.{getattr(function, '__qualname__', '')}"
    try:
        importable = _resolve(path) is function
    except (AttributeError, ImportError, ValueError):
        importable = False
    if not importable:
        raise ValueError(f"{function!r} is not an importable module-level function.")
    return path


def enqueue(
    function: Callable[..., Any],
    *,
    workspace_id: int,
    task_name: str | None = None,
    queue: str = "",
    scoped: bool = True,
    **kwargs: Any,
) -> None:
    """Queue ``function(workspace_id=…, **kwargs)`` after the current transaction commits;
    ``queue``: the named cluster's queue (``Q_CLUSTER_NAME=NAME manage.py qcluster``), else the
    main one. ``scoped=False``: the task opens its own tenant scopes (see
    :func:`run_tenant_task`)."""
    path = task_path(function)
    options = {"cluster": queue} if queue else {}
    # The runner's keyword, only when off: a scoped task's payload stays what it always was.
    runner = {} if scoped else {"scoped": False}

    def _send() -> None:
        async_task(RUNNER, path, workspace_id, kwargs, task_name=task_name, **runner, **options)

    transaction.on_commit(_send)


def run_tenant_task(
    function_path: str, workspace_id: int, kwargs: dict[str, Any], *, scoped: bool = True
) -> Any:
    """Worker side: scope the transaction to the task's workspace, then call the service.

    Text a task writes for people (a failed document's reason) is in the firm's language.
    ``scoped=False``: the function is called as it is, with no scope and in no language of
    the runner's; it opens a scope per step and sets the language it was queued with (the
    agent's turn, a compliance scan: minutes of work that commit as they go, which one outer
    transaction would hold back).
    """
    if not scoped:
        return _resolve(function_path)(workspace_id=workspace_id, **kwargs)
    workspace = Workspace.objects.select_related("firm").get(pk=workspace_id)
    with (
        translation.override(workspace.firm.preferred_language),
        workspace_scope(workspace),
    ):
        return _resolve(function_path)(workspace_id=workspace_id, **kwargs)


# --- Workers ------------------------------------------------------------------------------

# django-q2 saves each cluster's stat in the shared cache every guard cycle (under a second),
# to expire this many seconds later: a cluster that died is gone from it after that.
STAT_TTL_SECONDS = 3


def live_clusters(*, exclude: UUID | None = None) -> list[Status]:
    """Clusters (qcluster processes, on any host) working on this database's queue."""
    return [
        stat
        for stat in Stat.get_all()
        if stat.cluster_id != exclude and stat.status != Conf.STOPPED
    ]


def queue_locks_release_orphaned(*, pulled_before: datetime, own_cluster: UUID) -> int:
    """Make the tasks a dead cluster had pulled runnable at once; returns how many.

    The ORM broker locks a task it hands to a cluster for ``Q_CLUSTER["retry"]`` seconds and
    deletes it once done: the tasks of a cluster killed mid-work stay locked that long. When
    no cluster but ``own_cluster`` (just started) is alive, nothing can be running the tasks
    pulled before it started, so they are unlocked. With another live cluster they may be its
    work in progress, and unlocking them would run them twice: they wait for ``retry``.
    """
    if live_clusters(exclude=own_cluster):
        return 0
    now = timezone.now()
    # A task pulled at time t is locked until t + retry.
    released: int = (
        OrmQ.objects.using(Conf.ORM)
        .filter(
            key=get_broker().list_key,
            lock__gt=now,
            lock__lt=pulled_before + timedelta(seconds=Conf.RETRY),
        )
        .update(lock=now)
    )
    return released
