"""The embedded server: shared by processes, stopped by the last one, recovers after crashes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from django.conf import settings
from django.db import connection

from core.db_backend.server import ensure_embedded_server

ROOT = Path(__file__).resolve().parent.parent
JOIN = (
    "import sys; from pathlib import Path;"
    "from core.db_backend.server import ensure_embedded_server;"
    "s = ensure_embedded_server(Path(sys.argv[1])); print(s.pid, flush=True);"
    "sys.stdin.read() if len(sys.argv) > 2 else None"
)


def _join(data_dir: Path, *, hold: bool = False) -> subprocess.Popen[str]:
    args = [sys.executable, "-c", JOIN, str(data_dir)] + (["hold"] if hold else [])
    return subprocess.Popen(
        args, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )


def _wait_gone(pid: int, seconds: float = 15) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.django_db
def test_a_second_process_joins_the_running_server():
    connection.ensure_connection()
    ours = ensure_embedded_server(settings.LEXROOM_DATA_DIR)
    other = _join(settings.LEXROOM_DATA_DIR)
    out, _ = other.communicate(timeout=60)
    assert int(out.split()[0]) == ours.pid


def test_last_process_stops_the_server_even_after_a_crashed_peer(tmp_path):
    holder = _join(tmp_path, hold=True)
    pid = int(holder.stdout.readline())  # type: ignore[union-attr]
    crashed = _join(tmp_path, hold=True)
    assert int(crashed.stdout.readline()) == pid  # type: ignore[union-attr]
    os.kill(crashed.pid, signal.SIGKILL)  # dies without unregistering
    crashed.wait()
    survivor = _join(tmp_path)
    out, _ = survivor.communicate(timeout=60)
    assert int(out.split()[0]) == pid  # joined the same server
    holder.communicate(timeout=60)  # the last user exits normally
    assert _wait_gone(pid), "server kept running after its last user exited"


def test_server_stops_when_its_only_user_is_killed(tmp_path):
    user = _join(tmp_path, hold=True)
    pid = int(user.stdout.readline())  # type: ignore[union-attr]
    os.kill(user.pid, signal.SIGKILL)  # no atexit: only the watcher can see it is gone
    user.wait()
    assert _wait_gone(pid), "server kept running after its only user was killed"
    assert not (tmp_path / "postgres" / "postmaster.pid").exists()  # a clean shutdown


# A forked child (django-q's sentinel and workers) is a user of its own: the server outlives
# its parent while the child runs, and stops when the child ends with os._exit.
FORK = (
    "import os, sys, time; from pathlib import Path;"
    "from core.db_backend.server import ensure_embedded_server;"
    "s = ensure_embedded_server(Path(sys.argv[1]));"
    "child = os.fork()\n"
    "if child == 0:\n"
    "    ensure_embedded_server(Path(sys.argv[1])); sys.stdin.read(); os._exit(0)\n"
    "print(s.pid, child, flush=True); time.sleep(1)"
)


def test_forked_child_keeps_the_server_until_it_ends(tmp_path):
    parent = subprocess.Popen(
        [sys.executable, "-c", FORK, str(tmp_path)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    pid, child = map(int, parent.stdout.readline().split())  # type: ignore[union-attr]
    parent.wait(timeout=60)  # exited normally while its child still uses the server
    time.sleep(3)  # three watcher rounds
    assert not _wait_gone(pid, seconds=0.1), "server stopped under a live forked child"
    parent.stdin.close()  # type: ignore[union-attr]  # the child's stdin too: it ends
    assert _wait_gone(child)
    assert _wait_gone(pid), "server kept running after the forked child ended"


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT])
def test_signal_to_a_command_stops_the_server(tmp_path, stop_signal):
    code = (
        "from django.db import connection; from core.db_backend.server import _started;"
        "connection.ensure_connection(); [(s, _)] = _started.values(); print(s.pid, flush=True);"
        "import time; time.sleep(120)"
    )
    command = subprocess.Popen(
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", code],
        cwd=ROOT,
        env={**os.environ, "LEXROOM_DATA_DIR": str(tmp_path)},
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        pid = int(command.stdout.readline())  # type: ignore[union-attr]
        command.send_signal(stop_signal)
        command.wait(timeout=30)
    finally:
        command.kill()
    assert _wait_gone(pid), f"server kept running after {stop_signal.name} to its only user"


def test_server_killed_hard_is_restarted_on_next_use(tmp_path):
    first = _join(tmp_path, hold=True)
    pid = int(first.stdout.readline())  # type: ignore[union-attr]
    os.kill(pid, signal.SIGKILL)  # postmaster.pid is left behind, stale
    assert _wait_gone(pid)
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    second = _join(tmp_path)
    out, _ = second.communicate(timeout=60)
    assert second.returncode == 0
    assert int(out.split()[0]) != pid


def test_committed_rows_survive_a_server_killed_hard(tmp_path):
    """kill -9 of the postmaster: the next process restarts it, WAL replay brings back every
    committed row; the transaction open at the kill is gone."""
    import psycopg

    first = _join(tmp_path, hold=True)
    pid = int(first.stdout.readline())  # type: ignore[union-attr]
    server = ensure_embedded_server(tmp_path)
    with psycopg.connect(server.superuser_conninfo(), autocommit=True) as conn:
        conn.execute("CREATE TABLE batch (n int)")
        conn.execute("INSERT INTO batch SELECT generate_series(1, 1000)")
    open_conn = psycopg.connect(server.superuser_conninfo())
    open_conn.execute("INSERT INTO batch VALUES (-1)")  # never committed
    os.kill(pid, signal.SIGKILL)
    assert _wait_gone(pid)
    os.kill(first.pid, signal.SIGKILL)
    first.wait()
    from core.db_backend import server as server_module

    server_module._started.pop(server.pgdata, None)  # this process must start it again
    second = _join(tmp_path)
    out, _ = second.communicate(timeout=60)
    assert second.returncode == 0 and int(out.split()[0]) != pid
    again = ensure_embedded_server(tmp_path)
    with psycopg.connect(again.superuser_conninfo()) as conn:
        count, low = conn.execute("SELECT count(*), min(n) FROM batch").fetchone()
    assert (count, low) == (1000, 1)
