"""A django-q2 cluster that stops in seconds and hands a task over only to a free worker.

django-q2's sentinel stops by letting every worker finish its task, and the tasks already
pulled into its hand-off queue after it: a stop (a deploy, Ctrl-C) waited for the slowest
document. Here a stop gives the workers ``LEXROOM_WORKER_STOP_SECONDS``, then ends them, and
puts back at once in the queue what they were running and what was still waiting in the
hand-off queue: the tasks are idempotent, another cluster (or this one, restarted) runs them
again, and no attempt is counted for them.

Each worker writes the id of the task it runs into a slot of a shared array; the pusher
writes the id of each task it hands over into another, which the worker that takes it clears.
The sentinel reads the slots to know what it ended; the pusher (``workspaces.broker.FairBroker``)
reads both to claim a task only when a worker is free, so the queue's turns are not decided
early, and only of a firm under its share of the workers.

Workers run ``LEXROOM_WORKER_NICE`` nicer than the cluster: the web server keeps the CPU.
"""

from __future__ import annotations

import ctypes
import os
import time
import uuid
from collections.abc import Iterable
from multiprocessing import Value, current_process
from multiprocessing.context import ForkProcess
from multiprocessing.queues import Queue
from multiprocessing.sharedctypes import RawArray
from queue import Empty
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django_q.cluster import Cluster, Sentinel, get_mp_context
from django_q.conf import Conf, logger, setproctitle
from django_q.models import OrmQ
from django_q.status import Stat
from django_q.worker import worker

from workspaces.broker import FairBroker

IDLE = 0
BUSY_UNKNOWN = -1  # a task without a queue row id (never the case with the ORM broker)
# A finished worker's last result reaches the monitor, which saves it, in well under this.
MONITOR_STOP_SECONDS = 5

Slots = ctypes.Array[ctypes.c_int64]


class _SlotQueue:
    """The hand-off queue as a worker sees it: what it takes is written in its slot."""

    def __init__(self, queue: Queue[Any], slots: Slots, slot: int, handed: Slots) -> None:
        self._queue, self._slots, self._slot, self._handed = queue, slots, slot, handed

    def get(self) -> Any:
        # Idle from the moment it waits: the previous result is already on its way.
        self._slots[self._slot] = IDLE
        task = self._queue.get()
        if isinstance(task, dict):
            ack_id = task.get("ack_id")
            self._slots[self._slot] = ack_id if isinstance(ack_id, int) else BUSY_UNKNOWN
            # In its slot first, then out of the handed-over ones: the pusher, which reads
            # them in the other order, never misses it.
            for index, task_id in enumerate(self._handed):
                if task_id == ack_id:
                    self._handed[index] = IDLE
        return task


def _work(
    task_queue: Queue[Any],
    result_queue: Queue[Any],
    timer: Any,
    timeout: int | None,
    slots: Slots,
    slot: int,
    handed: Slots,
) -> None:
    os.nice(settings.LEXROOM_WORKER_NICE)  # the web server first; clamped at 19
    worker(_SlotQueue(task_queue, slots, slot, handed), result_queue, timer, timeout)


class _WorkerBoard:
    """The workers as the pusher sees them (``workspaces.broker.WorkerBoard``)."""

    def __init__(self, slots: Slots, handed: Slots, handoff: Queue[Any]) -> None:
        self._slots, self._handed, self._handoff = slots, handed, handoff
        self.size = len(slots)

    def free(self) -> bool:
        idle = sum(1 for task_id in self._slots if task_id == IDLE)
        return idle > self._handoff.qsize()

    def in_flight(self) -> set[int]:
        handed = {task_id for task_id in self._handed if task_id != IDLE}
        return (handed | set(self._slots)) - {IDLE, BUSY_UNKNOWN}

    def handed_over(self, task_id: int) -> None:
        for index, held in enumerate(self._handed):
            if held == IDLE:
                self._handed[index] = task_id
                return


class _WorkerProcess(ForkProcess):
    # Read by django-q2's sentinel (timer) and by ours (slot).
    timer: Any
    slot: int


def queue_rows_release(*, task_ids: Iterable[int]) -> int:
    """Make these pulled tasks runnable now (those not done yet); returns how many."""
    ids = [task_id for task_id in task_ids if task_id > 0]
    if not ids:
        return 0
    now = timezone.now()
    released: int = OrmQ.objects.using(Conf.ORM).filter(pk__in=ids, lock__gt=now).update(lock=now)
    return released


class QuickStopSentinel(Sentinel):  # type: ignore[misc]  # django-q2 ships no types
    pool: list[_WorkerProcess]

    def spawn_cluster(self) -> None:
        # Created before any process forks, so that all of them share it.
        self.slots: Slots = RawArray(ctypes.c_int64, self.pool_size)
        # The hand-off holds at most a task per idle worker; twice that for the moments
        # between a worker's taking a task and clearing it here.
        self.handed: Slots = RawArray(ctypes.c_int64, 2 * self.pool_size)
        super().spawn_cluster()

    def spawn_pusher(self) -> Any:
        if isinstance(self.broker, FairBroker):
            # A pusher that died may have noted a task it never handed over.
            ctypes.memset(self.handed, IDLE, ctypes.sizeof(self.handed))
            self.broker.board = _WorkerBoard(self.slots, self.handed, self.task_queue)
        return super().spawn_pusher()

    def spawn_worker(self) -> None:
        taken = {process.slot for process in self.pool}
        slot = min(set(range(len(self.slots))) - taken)
        self.slots[slot] = IDLE
        timer = Value("f", -1)
        process = _WorkerProcess(
            target=_work,
            args=(
                self.task_queue,
                self.result_queue,
                timer,
                self.timeout,
                self.slots,
                slot,
                self.handed,
            ),
            name=f"Process-{uuid.uuid4().hex}",
        )
        process.daemon = Conf.DAEMONIZE_WORKERS
        process.timer, process.slot = timer, slot
        self.pool.append(process)
        process.start()

    def stop(self) -> None:
        deadline = time.monotonic() + settings.LEXROOM_WORKER_STOP_SECONDS
        Stat(self).save()
        self.event_out.set()  # the pusher claims no more
        self._wait([self.pusher], until=deadline)
        waiting = self._drain_handoff()
        for _process in self.pool:
            self.task_queue.put("STOP")
        self._wait(self.pool, until=deadline)
        running = [self.slots[p.slot] for p in self.pool if p.is_alive()]
        self._end([*self.pool, self.pusher])
        self.pool = []
        # Nobody reads the STOPs of ended workers: do not wait to flush them.
        self.task_queue.cancel_join_thread()
        self.task_queue.close()
        self.result_queue.put("STOP")
        # Not joined: a worker ended mid-write may hold the queue's lock; the monitor's wait
        # below is the bound.
        self.result_queue.cancel_join_thread()
        self.result_queue.close()
        self._wait([self.monitor], until=time.monotonic() + MONITOR_STOP_SECONDS)
        self._end([self.monitor])
        try:
            released = queue_rows_release(task_ids=[*waiting, *running])
        except Exception:  # the database gone too: the tasks wait for Q_CLUSTER["retry"]
            logger.exception("Could not put the stopped tasks back in the queue")
        else:
            if released:
                message = ngettext(
                    "%(count)d unfinished task is back in the queue.",
                    "%(count)d unfinished tasks are back in the queue.",
                    released,
                )
                logger.warning(message % {"count": released})
        Stat(self).save()

    def _drain_handoff(self) -> list[int]:
        """The ids of the tasks pulled but not started."""
        ids: list[int] = []
        while True:
            try:
                task = self.task_queue.get(timeout=0.2)
            except Empty:
                return ids
            if isinstance(task, dict) and isinstance(task.get("ack_id"), int):
                ids.append(task["ack_id"])

    def _wait(self, processes: list[Any], *, until: float) -> None:
        while any(p.is_alive() for p in processes) and time.monotonic() < until:
            time.sleep(0.1)
            Stat(self).save()

    @staticmethod
    def _end(processes: list[Any]) -> None:
        alive = [p for p in processes if p.is_alive()]
        for process in alive:
            process.terminate()
        for process in alive:
            process.join(1)
            if process.is_alive():
                process.kill()
                process.join()


class QuickStopCluster(Cluster):  # type: ignore[misc]  # django-q2 ships no types
    """django-q2's cluster with :class:`QuickStopSentinel` (``manage.py qcluster``)."""

    def start(self) -> int:
        # django-q2's Cluster.start, which names its Sentinel class: the same steps with ours.
        if setproctitle:
            setproctitle.setproctitle(f"qcluster {current_process().name} {self.name}")
        self.stop_event = get_mp_context().Event()
        self.start_event = get_mp_context().Event()
        self.sentinel = get_mp_context().Process(
            target=QuickStopSentinel,
            name=f"Process-{uuid.uuid4().hex}",
            args=(self.stop_event, self.start_event, self.cluster_id, self.broker, self.timeout),
        )
        self.sentinel.start()
        logger.info(_("Q Cluster %(name)s starting.") % {"name": self.name})
        # Polled, not waited on: a signal during wait() would deadlock (see django-q2).
        while self.start_event and not self.start_event.is_set():
            if not self.sentinel.is_alive():
                if self.sentinel.exitcode == 0:
                    break  # stopped by a signal while starting
                raise RuntimeError(
                    f"Q Cluster {self.name} failed to start: sentinel exited with code "
                    f"{self.sentinel.exitcode}"
                )
            time.sleep(0.1)
        pid: int = self.pid
        return pid
