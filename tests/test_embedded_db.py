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

from config.db_backend.server import ensure_embedded_server

ROOT = Path(__file__).resolve().parent.parent
JOIN = (
    "import sys; from pathlib import Path;"
    "from config.db_backend.server import ensure_embedded_server;"
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
    crashed = _join(tmp_path, hold=True)
    pid = int(crashed.stdout.readline())  # type: ignore[union-attr]
    os.kill(crashed.pid, signal.SIGKILL)  # dies without unregistering
    crashed.wait()
    survivor = _join(tmp_path)
    out, _ = survivor.communicate(timeout=60)
    assert int(out.split()[0]) == pid  # joined the same server
    assert _wait_gone(pid), "server kept running after its last user exited"


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
