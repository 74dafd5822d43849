"""Stops an embedded server once none of the processes that use it is alive.

pgserver stops the server when the last registered process exits through ``atexit``. A process
that leaves any other way stays registered and the server runs on, adopted by init: killed by
SIGTERM (uvicorn re-raises it after its graceful shutdown) or SIGKILL, a closed terminal
(SIGHUP), or a multiprocessing child ending with ``os._exit`` (django-q's sentinel and workers).
This watcher, one per server, started detached by the first process that uses the server
(``ensure_embedded_server``), checks the registered processes every second and stops the
server (fast shutdown) when all of them are gone. Run as
``python -m core.db_backend.reaper PGDATA``; it needs neither Django nor the database.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time
from pathlib import Path

import psutil

MODULE = "core.db_backend.reaper"
# A watcher started before the backend moved out of config/ still watches its server.
_WATCHER_MODULES = frozenset({MODULE, "config.db_backend.reaper"})
PID_FILE = ".reaper.pid"
HANDLES_FILE = ".handle_pids.json"  # pgserver's registry of the processes using the server
POLL_SECONDS = 1.0
STOP_TIMEOUT_SECONDS = 60


def is_watching(pgdata: Path) -> bool:
    """Is a live watcher named in ``pgdata/.reaper.pid``? (Call under pgserver's lock.)"""
    try:
        process = psutil.Process(int((pgdata / PID_FILE).read_text()))
        return process.status() != psutil.STATUS_ZOMBIE and not _WATCHER_MODULES.isdisjoint(
            process.cmdline()
        )
    except (OSError, ValueError, psutil.Error):
        return False


def _postmaster(pgdata: Path) -> psutil.Process | None:
    try:
        process = psutil.Process(int((pgdata / "postmaster.pid").read_text().split()[0]))
        if process.name() == "postgres" and process.status() != psutil.STATUS_ZOMBIE:
            return process
    except (OSError, ValueError, IndexError, psutil.Error):
        pass
    return None


def _users_alive(pgdata: Path, *, prune: bool) -> bool:
    """Is any registered process alive? ``prune`` (under the lock) drops the dead ones."""
    handles = pgdata / HANDLES_FILE
    try:
        pids = json.loads(handles.read_text()) if handles.exists() else []
    except ValueError:
        return True  # being rewritten by a process joining right now
    alive = [pid for pid in pids if isinstance(pid, int) and _alive(pid)]
    if prune and alive != pids:
        handles.write_text(json.dumps(alive))
    return bool(alive)


def _alive(pid: int) -> bool:
    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False


def _stop(postmaster: psutil.Process) -> None:
    """Fast shutdown (what ``pg_ctl stop`` sends); immediate if it hangs."""
    postmaster.send_signal(signal.SIGINT)
    try:
        postmaster.wait(STOP_TIMEOUT_SECONDS)
    except psutil.TimeoutExpired:
        postmaster.send_signal(signal.SIGQUIT)


def watch(pgdata: Path, *, poll_seconds: float = POLL_SECONDS) -> None:
    from pgserver.postgres_server import PostgresServer

    try:
        while True:
            time.sleep(poll_seconds)
            postmaster = _postmaster(pgdata)
            if postmaster is None:
                return  # stopped by its last user, or by hand
            if _users_alive(pgdata, prune=False):
                continue
            # Under the lock no process can join between the last check and the stop.
            with PostgresServer._lock:
                if not _users_alive(pgdata, prune=True):
                    _stop(postmaster)
                    return
    finally:
        with PostgresServer._lock, contextlib.suppress(OSError, ValueError):
            if int((pgdata / PID_FILE).read_text()) == os.getpid():
                (pgdata / PID_FILE).unlink()


if __name__ == "__main__":
    watch(Path(sys.argv[1]))
