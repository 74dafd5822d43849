"""The task queue takes turns by firm, then by workspace.

django-q2's ORM broker hands out the oldest task first: a firm that queues a hundred slow
uploads makes every other firm wait for all of them. This broker picks, among the ready tasks,
one of the firm served least recently, then of that firm's workspace served least recently,
then that workspace's oldest task. A task's workspace is read from its arguments (``enqueue``
queues ``run_tenant_task(path, workspace_id, kwargs)``) once per task, its firm from the
workspace; a task queued otherwise (a schedule, django-q2's own) belongs to no firm, and that
"no firm" takes its turn like one.

Turns are remembered in the pusher process of each cluster (one per host): two clusters on
one queue are each fair, and so together. The table keeps django-q2's schema: no column, no
migration.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from django.utils import timezone
from django_q.brokers.orm import ORM
from django_q.conf import Conf
from django_q.signing import SignedPackage

from workspaces.models import Workspace
from workspaces.tasks import RUNNER

NO_FIRM = 0
# How often a pusher waiting for a free worker looks again.
CAPACITY_POLL_SECONDS = 0.05

Tenant = tuple[int, int]  # (firm id, workspace id); NO_FIRM for a task outside enqueue


def _workspace_of(payload: str) -> int:
    """The workspace id a queued task runs for, 0 when it names none."""
    try:
        task = SignedPackage.loads(payload)
    except Exception:  # signed with another key, or not a task: the pusher fails it anyway
        return 0
    args: tuple[Any, ...] = tuple(task.get("args") or ())
    if task.get("func") == RUNNER and len(args) > 1 and isinstance(args[1], int):
        return args[1]
    workspace_id = (task.get("kwargs") or {}).get("workspace_id")
    return workspace_id if isinstance(workspace_id, int) else 0


class FairBroker(ORM):  # type: ignore[misc]  # django-q2 ships no types
    """django-q2's ORM broker, taking turns by firm then workspace (``Q_CLUSTER["broker_class"]``).

    ``capacity``, set by the cluster (``workspaces.cluster``), says whether a worker is free:
    a task is claimed only then, so that no task waits in a cluster's hand when a later turn
    should pass it.
    """

    def __init__(self, list_key: str | None = None) -> None:
        super().__init__(list_key=list_key)
        self.capacity: Callable[[], bool] | None = None
        self._tenants: dict[int, Tenant] = {}  # ready task id -> its tenant, read once
        self._firm_of: dict[int, int] = {}  # workspace id -> firm id (a workspace never moves)
        self._turn = 0
        self._firm_served: dict[int, int] = {}  # firm -> the turn it was last served
        self._workspace_served: dict[Tenant, int] = {}

    def dequeue(self) -> list[tuple[int, str]] | None:
        if self.capacity is not None and not self._wait_for_capacity():
            return []  # the pusher checks whether it should stop, then asks again
        queued = self.get_connection().filter(key=self.list_key, lock__lt=timezone.now())
        ready = list(queued.order_by("id").values_list("id", flat=True))
        if not ready:
            time.sleep(Conf.POLL)  # an empty queue: as django-q2, spare the CPU
            return None
        tenants = self._tenants_of(ready)
        chosen, tenant = self.next_turn(tenants)
        # The lock changes only if no other cluster claimed the task since it was read.
        claimed = (
            self.get_connection()
            .filter(pk=chosen, lock__lt=timezone.now())
            .update(lock=self.timeout(None))
        )
        payload = self.get_connection().filter(pk=chosen).values_list("payload", flat=True)
        if not claimed or not payload:
            return []
        self._turn += 1
        self._firm_served[tenant[0]] = self._turn
        self._workspace_served[tenant] = self._turn
        return [(chosen, payload[0])]

    def next_turn(self, tenants: dict[int, Tenant]) -> tuple[int, Tenant]:
        """The task to hand out among ``tenants`` (ready task id -> tenant), and its tenant:
        the firm served least recently (never: first), then its workspace served least
        recently, then the oldest; ties go to the oldest task."""
        oldest: dict[Tenant, int] = {}
        for task_id in sorted(tenants):
            oldest.setdefault(tenants[task_id], task_id)

        def firm_turn(tenant: Tenant) -> tuple[int, int]:
            return self._firm_served.get(tenant[0], 0), oldest[tenant]

        firm = min(oldest, key=firm_turn)[0]
        tenant = min(
            (tenant for tenant in oldest if tenant[0] == firm),
            key=lambda tenant: (self._workspace_served.get(tenant, 0), oldest[tenant]),
        )
        return oldest[tenant], tenant

    def _tenants_of(self, ready: list[int]) -> dict[int, Tenant]:
        tenants = {task_id: self._tenants[task_id] for task_id in ready if task_id in self._tenants}
        unread = [task_id for task_id in ready if task_id not in tenants]
        if unread:
            rows = self.get_connection().filter(pk__in=unread).values_list("id", "payload")
            workspaces = {task_id: _workspace_of(payload) for task_id, payload in rows}
            self._learn_firms(workspaces.values())
            for task_id, workspace_id in workspaces.items():
                tenants[task_id] = (self._firm_of.get(workspace_id, NO_FIRM), workspace_id)
        # Only the ready tasks are kept: the cache is as large as the queue, no larger.
        self._tenants = tenants
        return tenants

    def _learn_firms(self, workspace_ids: Iterable[int]) -> None:
        unknown = {pk for pk in workspace_ids if pk and pk not in self._firm_of}
        if unknown:
            # Outside any tenant scope the workspaces table shows every firm's rows.
            found = Workspace.objects.filter(pk__in=unknown).values_list("pk", "firm_id")
            self._firm_of.update(dict(found))

    def _wait_for_capacity(self) -> bool:
        deadline = time.monotonic() + Conf.POLL
        while self.capacity is not None and not self.capacity():
            if time.monotonic() >= deadline:
                return False
            time.sleep(CAPACITY_POLL_SECONDS)
        return True
