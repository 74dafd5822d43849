"""Background tasks run inside their workspace's tenant scope."""

from __future__ import annotations

from datetime import datetime, timedelta
from io import StringIO
from types import SimpleNamespace
from uuid import UUID, uuid4

import pytest
from django.core.management import get_commands
from django.utils import timezone, translation
from django_q.brokers import get_broker
from django_q.conf import Conf
from django_q.models import OrmQ
from django_q.signing import SignedPackage
from django_q.status import Stat, Status

from tests.helpers.rooms import Room
from workspaces.management.commands import qcluster
from workspaces.models import Membership
from workspaces.tasks import enqueue, queue_locks_release_orphaned
from workspaces.tenancy import current_workspace_ids, tenant_scope

pytestmark = pytest.mark.django_db

seen: list[tuple[tuple[int, ...], int]] = []


def record_scope(*, workspace_id: int) -> None:
    seen.append((current_workspace_ids(), Membership.objects.count()))


def test_enqueued_task_runs_after_commit_in_its_workspace_scope(
    room: Room, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(Conf, "SYNC", True)
    seen.clear()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        enqueue(record_scope, workspace_id=room.workspace.pk)
        assert seen == []  # nothing runs before commit
    assert len(callbacks) == 1
    assert seen == [((room.workspace.pk,), 3)]


def test_an_unscoped_task_opens_its_own_scopes_and_keeps_its_workspace_in_the_queue(
    room: Room, monkeypatch, django_capture_on_commit_callbacks
):
    # The agent's turn and a compliance scan: no scope around them (they commit as they go),
    # yet queued like any task, their workspace where the fair queue reads it.
    monkeypatch.setattr(Conf, "SYNC", False)
    OrmQ.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        enqueue(record_scope, workspace_id=room.workspace.pk, scoped=False, task_name="free")
    (queued,) = OrmQ.objects.all()
    task = SignedPackage.loads(queued.payload)
    assert task["func"] == "workspaces.tasks.run_tenant_task" and task["name"] == "free"
    assert task["args"][1] == room.workspace.pk and task["kwargs"] == {"scoped": False}
    queued.delete()
    monkeypatch.setattr(Conf, "SYNC", True)
    seen.clear()
    with django_capture_on_commit_callbacks(execute=True):
        enqueue(record_scope, workspace_id=room.workspace.pk, scoped=False)
    assert [scope for scope, _ in seen] == [()]


def test_enqueue_refuses_a_function_a_worker_could_not_import(
    room: Room, django_capture_on_commit_callbacks
):
    def nested(*, workspace_id: int) -> None:
        pass

    with django_capture_on_commit_callbacks() as callbacks:
        for function in (nested, lambda **_: None, Room.__init__):
            with pytest.raises(ValueError, match="not an importable module-level function"):
                enqueue(function, workspace_id=room.workspace.pk)
    assert callbacks == []


def test_scope_is_empty_outside_a_task(room: Room):
    assert current_workspace_ids() == ()
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        assert current_workspace_ids() == (room.workspace.pk,)


# --- Tasks left locked by a cluster that died -------------------------------------------------


def _task(*, locked_until: datetime) -> OrmQ:
    return OrmQ.objects.create(key=get_broker().list_key, payload="signed task", lock=locked_until)


def _pulled(at: datetime) -> datetime:
    return at + timedelta(seconds=Conf.RETRY)  # what the ORM broker sets when it hands out a task


def _cluster_alive(status: str = Conf.IDLE) -> UUID:
    cluster_id = uuid4()
    stat = Status(pid=4242, cluster_id=cluster_id)
    stat.status = status
    get_broker().set_stat(Stat.get_key(cluster_id), SignedPackage.dumps(stat, True), 30)
    return cluster_id


def _locks(*tasks: OrmQ) -> list[datetime]:
    return [OrmQ.objects.get(pk=task.pk).lock for task in tasks]


def test_tasks_pulled_by_a_dead_cluster_run_again_when_no_other_cluster_lives(db):
    started = timezone.now()
    orphan = _task(locked_until=_pulled(started - timedelta(minutes=2)))
    ours = _task(locked_until=_pulled(started + timedelta(seconds=1)))  # pulled by the new one
    waiting = _task(locked_until=started - timedelta(minutes=1))  # never pulled: runnable
    own_cluster = _cluster_alive()  # the cluster that just started does not count
    _cluster_alive(status=Conf.STOPPED)  # nor does one that stopped cleanly
    released = queue_locks_release_orphaned(pulled_before=started, own_cluster=own_cluster)
    assert released == 1
    orphan_lock, ours_lock, waiting_lock = _locks(orphan, ours, waiting)
    assert started <= orphan_lock <= timezone.now()  # the broker hands it out at once
    assert ours_lock == ours.lock and waiting_lock == waiting.lock


def test_locked_tasks_are_left_alone_while_another_cluster_lives(db):
    started = timezone.now()
    in_flight = _task(locked_until=_pulled(started - timedelta(minutes=2)))
    _cluster_alive()  # e.g. a worker on another host, which may be running it
    assert queue_locks_release_orphaned(pulled_before=started, own_cluster=uuid4()) == 0
    assert _locks(in_flight) == [in_flight.lock]


def test_qcluster_command_releases_once_after_stats_expire_then_waits_for_its_cluster(
    monkeypatch,
):
    assert get_commands()["qcluster"] == "workspaces"  # ours, not django-q2's
    monkeypatch.setattr(qcluster, "RELEASE_AFTER_SECONDS", 0)
    calls: list[dict[str, object]] = []

    def release(**kwargs: object) -> int:
        calls.append(kwargs)
        return 2

    monkeypatch.setattr(qcluster, "queue_locks_release_orphaned", release)
    alive = iter([True, True, True, False])
    sentinel = SimpleNamespace(is_alive=lambda: next(alive), join=lambda timeout: None)
    cluster = SimpleNamespace(sentinel=sentinel, cluster_id=uuid4())
    started = timezone.now()
    err = StringIO()
    with translation.override("en"):
        qcluster.Command(stderr=err).wait(cluster, started)  # type: ignore[arg-type]
    assert calls == [{"pulled_before": started, "own_cluster": cluster.cluster_id}]
    assert "2 tasks left locked by a stopped worker are queued again." in err.getvalue()
