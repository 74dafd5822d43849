"""The task queue takes turns by firm, then by workspace; a stopping worker stops in seconds and
its unfinished task runs again. The broker is read directly, then real qcluster processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone
from django_q.brokers import get_broker
from django_q.conf import Conf
from django_q.models import OrmQ
from django_q.signing import SignedPackage
from django_q.tasks import async_task

from tests.factories import FirmFactory, WorkspaceFactory
from workspaces.broker import FairBroker
from workspaces.models import Firm, Workspace
from workspaces.tasks import enqueue

ROOT = Path(__file__).resolve().parents[2]


def log_turn(*, workspace_id: int, log: str, label: str, seconds: float = 0) -> None:
    """A task that notes when it starts (the worker imports it from this module)."""
    with Path(log).open("a") as file:
        file.write(f"{label}\n")
    time.sleep(seconds)


def note_niceness(*, workspace_id: int, log: str) -> None:
    with Path(log).open("a") as file:
        file.write(f"{os.getpriority(os.PRIO_PROCESS, 0)}\n")


def slow_the_first_time(*, workspace_id: int, log: str) -> None:
    path = Path(log)
    first = not path.exists()
    with path.open("a") as file:
        file.write("start\n")
    if first:
        time.sleep(300)
    with path.open("a") as file:
        file.write("done\n")


@pytest.fixture
def queue(monkeypatch, django_capture_on_commit_callbacks) -> Callable[..., None]:
    """Queue ``log_turn`` for a workspace, as the product does, without running it, on a
    queue emptied first (tasks an earlier test committed would take turns of their own)."""
    monkeypatch.setattr(Conf, "SYNC", False)
    OrmQ.objects.all().delete()

    def queue_for(workspace: Workspace, label: str, log: str = "-", **kwargs: object) -> None:
        with django_capture_on_commit_callbacks(execute=True):
            enqueue(log_turn, workspace_id=workspace.pk, log=log, label=label, **kwargs)

    return queue_for


def _served(broker: FairBroker) -> Iterator[str]:
    """The labels of the queued tasks, in the order the broker hands them out."""
    while OrmQ.objects.filter(key=broker.list_key).exists():
        for task_id, payload in broker.dequeue() or []:
            broker.acknowledge(task_id)
            task = SignedPackage.loads(payload)
            yield task["args"][2].get("label") if task["args"] else task["kwargs"]["label"]


@pytest.mark.django_db
def test_a_firm_s_one_task_passes_another_firm_s_backlog(queue):
    firm_a, firm_b = FirmFactory(), FirmFactory()
    alpha, beta = WorkspaceFactory(firm=firm_a), WorkspaceFactory(firm=firm_b)
    for n in range(20):
        queue(beta, f"B{n}")
    queue(alpha, "A")
    broker = get_broker()
    assert isinstance(broker, FairBroker)
    served = list(_served(broker))
    assert "A" in served[:2]
    assert [label for label in served if label != "A"] == [f"B{n}" for n in range(20)]


@pytest.mark.django_db
def test_the_workspaces_of_one_firm_take_turns(queue):
    firm = FirmFactory()
    first, second = WorkspaceFactory(firm=firm), WorkspaceFactory(firm=firm)
    for n in range(5):
        queue(first, f"1-{n}")
    for n in range(5):
        queue(second, f"2-{n}")
    served = list(_served(get_broker()))
    assert [label[0] for label in served] == list("1212121212")


@pytest.mark.django_db
def test_tasks_outside_enqueue_have_their_own_turn(queue):
    firm = FirmFactory()
    workspace = WorkspaceFactory(firm=firm)
    for n in range(10):
        async_task(log_turn, workspace_id=0, log="-", label=f"plain{n}")
    queue(workspace, "tenant")
    for n in range(10, 12):
        async_task(log_turn, workspace_id=0, log="-", label=f"plain{n}")
    served = list(_served(get_broker()))
    assert "tenant" in served[:2]
    assert len(served) == 13


@pytest.mark.django_db
def test_with_ten_thousand_tasks_queued_each_firm_still_gets_a_turn_in_three():
    OrmQ.objects.all().delete()  # what earlier tests committed would take turns of its own
    firms = [FirmFactory() for _ in range(3)]
    workspaces = [WorkspaceFactory(firm=firm) for firm in firms for _ in range(3)]
    payloads = [
        SignedPackage.dumps(
            {
                "id": str(n),
                "name": str(n),
                "func": "workspaces.tasks.run_tenant_task",
                "args": ("math.floor", workspaces[n % len(workspaces)].pk, {}),
                "kwargs": {},
            }
        )
        for n in range(10_000)
    ]
    broker = get_broker()
    past = timezone.now()
    OrmQ.objects.bulk_create(
        OrmQ(key=broker.list_key, payload=payload, lock=past) for payload in payloads
    )
    turns = [broker.dequeue() for _ in range(10)]  # the first reads each task's workspace
    firm_of = {workspace.pk: workspace.firm_id for workspace in workspaces}
    served = [firm_of[SignedPackage.loads(turn[0][1])["args"][1]] for turn in turns if turn]
    assert len(served) == 10
    assert all(len(set(served[n : n + 3])) == 3 for n in range(0, 9, 3))  # one task a firm


class _Board:
    """Two workers that never end a task unless told (``workspaces.broker.WorkerBoard``)."""

    size = 2

    def __init__(self) -> None:
        self.held: set[int] = set()

    def free(self) -> bool:
        return True

    def in_flight(self) -> set[int]:
        return set(self.held)

    def handed_over(self, task_id: int) -> None:
        self.held.add(task_id)


def _claim(broker: FairBroker) -> str | None:
    """The label of the task the broker claims now, None when it claims none."""
    for _task_id, payload in broker.dequeue() or []:
        return str(SignedPackage.loads(payload)["args"][2]["label"])
    return None


@pytest.mark.django_db
def test_with_two_firms_one_firm_never_holds_every_worker(queue, settings):
    settings.LEXROOM_WORKERS_RESERVED = 1
    alpha, beta = WorkspaceFactory(firm=FirmFactory()), WorkspaceFactory(firm=FirmFactory())
    for n in range(3):
        queue(alpha, f"A{n}")
    broker = get_broker()
    broker.board = board = _Board()
    assert _claim(broker) == "A0"
    assert _claim(broker) is None  # a worker idles, kept for another firm
    queue(beta, "B")
    assert _claim(broker) == "B"
    board.held -= {OrmQ.objects.order_by("id").first().pk}  # A0 ends
    assert _claim(broker) == "A1"


@pytest.mark.django_db
def test_a_lone_firm_uses_every_worker(queue, settings):
    settings.LEXROOM_WORKERS_RESERVED = 1
    workspace = WorkspaceFactory(firm=FirmFactory())
    assert Firm.objects.count() == 1
    for n in range(3):
        queue(workspace, f"A{n}")
    broker = get_broker()
    broker.board = _Board()
    assert [_claim(broker), _claim(broker)] == ["A0", "A1"]


# --- Real clusters ------------------------------------------------------------------------


@contextmanager
def _cluster(tmp_path: Path, name: str, **env: str) -> Iterator[subprocess.Popen[bytes]]:
    log = tmp_path / f"{name}.log"
    process = subprocess.Popen(
        [sys.executable, "manage.py", "qcluster"],
        cwd=ROOT,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "SECRET_KEY": settings.SECRET_KEY,  # the tasks are signed with it
            "DEBUG": "0",
            "LEXROOM_DB_NAME": connection.settings_dict["NAME"],
            "LEXROOM_DATA_DIR": str(settings.LEXROOM_DATA_DIR),
            "LEXROOM_WORKERS": "1",
            "LEXROOM_WORKER_STOP_SECONDS": "2",
            **env,
        },
        start_new_session=True,  # its own group: a lingering one is killed whole
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        print(log.read_text(errors="replace")[-3000:])  # shown when the test fails


def _wait_for(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def _lines(path: Path) -> list[str]:
    return path.read_text().split() if path.exists() else []


@pytest.mark.django_db(transaction=True)
def test_a_cluster_claims_a_task_only_when_a_worker_is_free(queue, tmp_path):
    """Firm B's backlog is queued when the worker starts; firm A's upload comes while B's
    first task runs, and is the next one run: none of B's waited in the cluster's hand."""
    alpha, beta = WorkspaceFactory(firm=FirmFactory()), WorkspaceFactory(firm=FirmFactory())
    log = tmp_path / "turns.log"
    queue(beta, "B1", log=str(log), seconds=4)
    queue(beta, "B2", log=str(log))
    queue(beta, "B3", log=str(log))
    with _cluster(tmp_path, "fair") as cluster:
        assert _wait_for(lambda: "B1" in _lines(log), 60), "the worker never started"
        queue(alpha, "A", log=str(log))
        assert _wait_for(lambda: len(_lines(log)) == 4, 30), _lines(log)
        cluster.send_signal(signal.SIGTERM)
        cluster.wait(timeout=30)
    assert _lines(log) == ["B1", "A", "B2", "B3"]


@pytest.mark.django_db(transaction=True)
def test_a_stopping_cluster_ends_its_task_in_seconds_and_the_task_runs_again(
    monkeypatch, django_capture_on_commit_callbacks, tmp_path
):
    monkeypatch.setattr(Conf, "SYNC", False)
    workspace = WorkspaceFactory(firm=FirmFactory())
    log = tmp_path / "slow.log"
    with django_capture_on_commit_callbacks(execute=True):
        enqueue(slow_the_first_time, workspace_id=workspace.pk, log=str(log))
    with _cluster(tmp_path, "first") as first:
        assert _wait_for(lambda: "start" in _lines(log), 60), "the worker never started"
        asked = time.monotonic()
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=30)
        stopped_in = time.monotonic() - asked
    assert stopped_in < 8, stopped_in  # 2 s for the task, then the worker is ended
    # Runnable again at once, not after Q_CLUSTER["retry"] (the task timeout + 60 s).
    assert OrmQ.objects.filter(lock__lte=timezone.now()).count() == 1
    with _cluster(tmp_path, "second") as second:
        assert _wait_for(lambda: "done" in _lines(log), 60), _lines(log)
        second.send_signal(signal.SIGTERM)
        second.wait(timeout=30)
    assert _lines(log) == ["start", "start", "done"]


@pytest.mark.django_db(transaction=True)
def test_another_firm_s_task_starts_in_seconds_while_one_firm_has_a_backlog(queue, tmp_path):
    """Two workers, firm A's four long tasks queued: A runs one at a time, and firm B's task,
    queued after them, starts on the worker kept free instead of waiting for A's to end."""
    alpha, beta = WorkspaceFactory(firm=FirmFactory()), WorkspaceFactory(firm=FirmFactory())
    log = tmp_path / "turns.log"
    for n in range(4):
        queue(alpha, f"A{n}", log=str(log), seconds=30)
    with _cluster(tmp_path, "share", LEXROOM_WORKERS="2", LEXROOM_WORKERS_RESERVED="1"):
        assert _wait_for(lambda: "A0" in _lines(log), 60), "the worker never started"
        time.sleep(2)  # long enough for the second worker to take A1, were it allowed
        queue(beta, "B", log=str(log))
        assert _wait_for(lambda: "B" in _lines(log), 5), _lines(log)
    assert _lines(log) == ["A0", "B"]


@pytest.mark.django_db(transaction=True)
def test_workers_run_nicer_than_the_cluster_that_starts_them(
    monkeypatch, django_capture_on_commit_callbacks, tmp_path
):
    monkeypatch.setattr(Conf, "SYNC", False)
    workspace = WorkspaceFactory(firm=FirmFactory())
    log = tmp_path / "niceness.log"
    with django_capture_on_commit_callbacks(execute=True):
        enqueue(note_niceness, workspace_id=workspace.pk, log=str(log))
    with _cluster(tmp_path, "nice", LEXROOM_WORKER_NICE="5"):
        assert _wait_for(lambda: bool(_lines(log)), 60), "the worker never started"
    ours = os.getpriority(os.PRIO_PROCESS, 0)
    assert _lines(log) == [str(min(ours + 5, 19))]
