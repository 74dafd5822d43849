"""The task queue takes turns by firm, then by workspace.

django-q2's ORM broker hands out the oldest task first: a firm that queues a hundred slow
uploads makes every other firm wait for all of them. This broker picks, among the ready tasks,
one of the firm served least recently, then of that firm's workspace served least recently,
then that workspace's oldest task. A task's workspace is read from its arguments (``enqueue``
queues ``run_tenant_task(path, workspace_id, kwargs)``) once per task, its firm from the
workspace; a task queued otherwise (a schedule, django-q2's own) belongs to no firm, and that
"no firm" takes its turn like one.

Turns are not preemptive: once every worker runs one firm's task, another firm waits for one
of them to end. So, once the install has more than one firm (or more than one has work), a
firm runs at most ``workers - LEXROOM_WORKERS_RESERVED`` tasks at once (at least one): a
worker is always left for another firm. A lone firm uses every worker.

Turns and shares are kept in the pusher process of each cluster (one per host): two clusters
on one queue are each fair, and so together. The table keeps django-q2's schema: no column,
no migration.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable
from typing import Any, Protocol

from django.conf import settings
from django.utils import timezone
from django_q.brokers.orm import ORM
from django_q.conf import Conf
from django_q.signing import SignedPackage

from workspaces.models import Workspace
from workspaces.tasks import RUNNER

NO_FIRM = 0
# How often a pusher waiting for a free worker looks again.
CAPACITY_POLL_SECONDS = 0.05
# How long whether the install has more than one firm is remembered.
FIRM_COUNT_SECONDS = 60

Tenant = tuple[int, int]  # (firm id, workspace id); NO_FIRM for a task outside enqueue


class WorkerBoard(Protocol):
    """What the cluster tells its pusher about its workers (``workspaces.cluster``)."""

    size: int  # workers in the cluster

    def free(self) -> bool:
        """Whether a worker waits for a task that is not already handed over."""

    def in_flight(self) -> set[int]:
        """The ids of the tasks handed over and not yet taken, or running."""

    def handed_over(self, task_id: int) -> None:
        """Note a claimed task, before the pusher hands it to the workers."""


def _task_of(payload: str) -> dict[str, Any] | None:
    try:
        task: dict[str, Any] = SignedPackage.loads(payload)
    except Exception:  # signed with another key, or not a task: the pusher fails it anyway
        return None
    return task


def _workspace_of(payload: str) -> int:
    """The workspace id a queued task runs for, 0 when it names none."""
    task = _task_of(payload)
    if task is None:
        return 0
    args: tuple[Any, ...] = tuple(task.get("args") or ())
    if task.get("func") == RUNNER and len(args) > 1 and isinstance(args[1], int):
        return args[1]
    workspace_id = (task.get("kwargs") or {}).get("workspace_id")
    return workspace_id if isinstance(workspace_id, int) else 0


class FairBroker(ORM):  # type: ignore[misc]  # django-q2 ships no types
    """django-q2's ORM broker, taking turns by firm then workspace (``Q_CLUSTER["broker_class"]``).

    ``board``, set by the cluster (``workspaces.cluster``), says whether a worker is free and
    which tasks its workers hold: a task is claimed only when a worker is free, so that no task
    waits in a cluster's hand when a later turn should pass it, and only of a firm under its
    share of the workers.
    """

    def __init__(self, list_key: str | None = None) -> None:
        super().__init__(list_key=list_key)
        self.board: WorkerBoard | None = None
        self._claimed: dict[int, Tenant] = {}  # handed-over or running task id -> its tenant
        self._many_firms: tuple[float, bool] = (0.0, False)  # (until, the answer)
        self._tenants: dict[int, Tenant] = {}  # ready task id -> its tenant, read once
        self._firm_of: dict[int, int] = {}  # workspace id -> firm id (a workspace never moves)
        self._turn = 0
        self._firm_served: dict[int, int] = {}  # firm -> the turn it was last served
        self._workspace_served: dict[Tenant, int] = {}

    def dequeue(self) -> list[tuple[int, str]] | None:
        if self.board is not None and not self._wait_for_capacity():
            return []  # the pusher checks whether it should stop, then asks again
        queued = self.get_connection().filter(key=self.list_key, lock__lt=timezone.now())
        ready = list(queued.order_by("id").values_list("id", flat=True))
        if not ready:
            time.sleep(Conf.POLL)  # an empty queue: as django-q2, spare the CPU
            return None
        in_flight = self._in_flight()
        tenants = self.within_share(self._tenants_of(ready), in_flight)
        if not tenants:
            # Every ready task's firm holds its share: wait for one of its tasks to end.
            self._wait_for_change(set(in_flight))
            return []
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
        if self.board is not None and _task_of(payload[0]) is not None:
            # Only what the pusher will hand over: it fails a task it cannot read instead.
            self.board.handed_over(chosen)
            self._claimed[chosen] = tenant
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

    def within_share(
        self, tenants: dict[int, Tenant], in_flight: dict[int, Tenant]
    ) -> dict[int, Tenant]:
        """The ready tasks (id -> tenant) whose firm may start one more beside ``in_flight``
        (this cluster's tasks handed over or running, id -> tenant)."""
        share = self._firm_share({firm for firm, _ in [*tenants.values(), *in_flight.values()]})
        if share is None:
            return tenants
        held = Counter(firm for firm, _ in in_flight.values())
        return {task_id: tenant for task_id, tenant in tenants.items() if held[tenant[0]] < share}

    def _firm_share(self, firms_with_work: set[int]) -> int | None:
        """How many tasks one firm may run at once in this cluster; None: no bound."""
        reserved: int = settings.LEXROOM_WORKERS_RESERVED
        if self.board is None or self.board.size < 2 or reserved == 0:
            return None  # one worker: nothing to reserve; reserving it would stop all work
        if len(firms_with_work) < 2 and not self._install_has_many_firms():
            return None  # a lone firm uses every worker
        return max(self.board.size - reserved, 1)

    def _install_has_many_firms(self) -> bool:
        until, many = self._many_firms
        if time.monotonic() >= until:
            # Outside any tenant scope the workspaces table shows every firm's rows.
            firms = Workspace.objects.values_list("firm_id", flat=True).distinct()[:2]
            many = len(firms) > 1
            self._many_firms = (time.monotonic() + FIRM_COUNT_SECONDS, many)
        return many

    def _in_flight(self) -> dict[int, Tenant]:
        if self.board is None:
            return {}
        ids = self.board.in_flight()
        known = {task_id: self._claimed[task_id] for task_id in ids if task_id in self._claimed}
        # Claimed before this pusher started (a reincarnated one): read from the queue.
        known.update(self._read_tenants([task_id for task_id in ids if task_id not in known]))
        self._claimed = known  # ended tasks are forgotten
        return known

    def _tenants_of(self, ready: list[int]) -> dict[int, Tenant]:
        tenants = {task_id: self._tenants[task_id] for task_id in ready if task_id in self._tenants}
        tenants.update(self._read_tenants([task_id for task_id in ready if task_id not in tenants]))
        # Only the ready tasks are kept: the cache is as large as the queue, no larger.
        self._tenants = tenants
        return tenants

    def _read_tenants(self, task_ids: list[int]) -> dict[int, Tenant]:
        if not task_ids:
            return {}
        rows = self.get_connection().filter(pk__in=task_ids).values_list("id", "payload")
        workspaces = {task_id: _workspace_of(payload) for task_id, payload in rows}
        self._learn_firms(workspaces.values())
        return {
            task_id: (self._firm_of.get(workspace_id, NO_FIRM), workspace_id)
            for task_id, workspace_id in workspaces.items()
        }

    def _learn_firms(self, workspace_ids: Iterable[int]) -> None:
        unknown = {pk for pk in workspace_ids if pk and pk not in self._firm_of}
        if unknown:
            # Outside any tenant scope the workspaces table shows every firm's rows.
            found = Workspace.objects.filter(pk__in=unknown).values_list("pk", "firm_id")
            self._firm_of.update(dict(found))

    def _wait_for_capacity(self) -> bool:
        deadline = time.monotonic() + Conf.POLL
        while self.board is not None and not self.board.free():
            if time.monotonic() >= deadline:
                return False
            time.sleep(CAPACITY_POLL_SECONDS)
        return True

    def _wait_for_change(self, in_flight: set[int]) -> None:
        """Until a task in flight ends, or a poll interval passed (new tasks may be ready)."""
        deadline = time.monotonic() + Conf.POLL
        while self.board is not None and self.board.in_flight() == in_flight:
            if time.monotonic() >= deadline:
                return
            time.sleep(CAPACITY_POLL_SECONDS)
