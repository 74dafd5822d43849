"""Search on a streaming replica: the embedded binaries started as a primary and a hot
standby on TCP (pg_basebackup -R), the app pointed at both, and a probe process
(tests/search/replica_probe.py) that ingests on the primary and searches through the tool.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connections

from search.replica import SearchReplicaRouter, read_connection, replica_reads
from workspaces.models import Workspace

ROOT = Path(__file__).resolve().parents[2]
APP_PASSWORD = "replica-check"


def test_without_a_replica_search_reads_the_primary():
    router = SearchReplicaRouter()
    assert "replica" not in settings.DATABASES
    assert router.db_for_read(Workspace) == router.db_for_write(Workspace) == "default"
    with replica_reads() as alias:
        assert alias == "default"
        assert read_connection() is connections["default"]
        assert router.db_for_read(Workspace) == "default"
    assert router.allow_migrate("replica", "documents") is False


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Cluster:
    bin: Path
    dir: Path
    run_as: list[str]
    primary_port: int
    replica_port: int

    def run(self, *args: str) -> None:
        subprocess.run([*self.run_as, *args], check=True, capture_output=True, timeout=120)

    def ctl(self, data: str, action: str, options: str = "") -> None:
        command = [str(self.bin / "pg_ctl"), "-D", str(self.dir / data), "-w", "-m", "fast"]
        if options:
            command += ["-o", options, "-l", str(self.dir / f"{data}.log")]
        self.run(*command, action)

    def url(self, port: int, user: str = "lexroom_app", dbname: str = "lexroom") -> str:
        password = f":{APP_PASSWORD}" if user == "lexroom_app" else ""
        return f"postgres://{user}{password}@127.0.0.1:{port}/{dbname}"


def _options(dir: Path, port: int) -> str:
    return f"-p {port} -k {dir} -c listen_addresses=127.0.0.1"


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    from pgserver._commands import POSTGRES_BIN_PATH

    # Not under pytest's tmp (mode 0700 above it): the server's user must reach the directory.
    dir = Path(tempfile.mkdtemp(prefix="lexroom-replica-"))
    run_as: list[str] = []
    if os.geteuid() == 0:  # initdb refuses root: the embedded server's own user
        if subprocess.run(["id", "pgserver"], capture_output=True).returncode:
            subprocess.run(["useradd", "--system", "--no-create-home", "pgserver"], check=True)
        shutil.chown(dir, "pgserver")
        run_as = ["runuser", "-u", "pgserver", "--"]
    found = Cluster(Path(POSTGRES_BIN_PATH), dir, run_as, _free_port(), _free_port())
    found.run(
        str(found.bin / "initdb"), "-D", str(dir / "primary"), "-U", "postgres", "-A", "trust"
    )
    found.ctl("primary", "start", _options(dir, found.primary_port))
    try:
        found.run(
            str(found.bin / "psql"), "-h", "127.0.0.1", "-p", str(found.primary_port),
            "-U", "postgres", "-qc", "CREATE DATABASE lexroom",
        )  # fmt: skip
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--no-input"],
            cwd=ROOT, env=_env(found, replica=False), check=True, capture_output=True, timeout=300,
        )  # fmt: skip
        found.run(
            str(found.bin / "pg_basebackup"), "-D", str(dir / "standby"), "-h", "127.0.0.1",
            "-p", str(found.primary_port), "-U", "postgres", "-R", "-X", "stream", "-c", "fast",
        )  # fmt: skip
        found.ctl("standby", "start", _options(dir, found.replica_port))
        yield found
    finally:
        for data in ("standby", "primary"):
            if (dir / data / "postmaster.pid").exists():
                found.ctl(data, "stop")
        shutil.rmtree(dir, ignore_errors=True)


def _env(cluster: Cluster, *, replica: bool = True) -> dict[str, str]:
    env = {
        **os.environ,
        "DATABASE_URL": cluster.url(cluster.primary_port),
        "DATABASE_ADMIN_URL": cluster.url(cluster.primary_port, "postgres", "postgres"),
        "PROBE_ADMIN_PRIMARY": cluster.url(cluster.primary_port, "postgres"),
        "PROBE_ADMIN_REPLICA": cluster.url(cluster.replica_port, "postgres"),
        "LEXROOM_DB_SINGLE_ROLE": "0",
        "SECRET_KEY": str(settings.SECRET_KEY),
        "LEXROOM_PG_BIN": str(cluster.bin),
        "LEXROOM_EMBEDDING_MODEL": str(settings.LEXROOM_EMBEDDING_MODEL),
        "LEXROOM_MEDIA_DIR": str(cluster.dir / "media"),
        "HF_HUB_OFFLINE": "1",
    }
    if replica:
        env["DATABASE_REPLICA_URL"] = cluster.url(cluster.replica_port)
    return env


def _probe(cluster: Cluster, step: str, **env: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "tests.search.replica_probe", step],
        cwd=ROOT, env={**_env(cluster), **env}, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    report: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def test_search_reads_the_standby_in_the_callers_scope(cluster: Cluster):
    report = _probe(cluster, "main")
    print(json.dumps(report))  # the numbers the README quotes (pytest -s)
    assert report["in_recovery"] is True
    found = report["found"]
    # The replica answered the search; the primary read no chunk for it.
    assert found == {"refs": ["zep-1"], "replica_chunk_reads": found["replica_chunk_reads"],
                     "primary_chunk_reads": 0}  # fmt: skip
    assert found["replica_chunk_reads"] > 0
    # The scope was mirrored on the standby: the owner's shows the room's chunks, another
    # firm's user's none, and a query there outside any scope sees no chunk.
    seen = report["chunks_seen_on_replica"]
    assert seen["owner"][0] == seen["other_firm"][0] == "replica"
    assert seen["owner"][1] > 0 and seen["other_firm"][1] == 0
    assert report["unscoped_chunks"] == 0
    # With replay paused, a document just stored on the primary is not on the standby yet:
    # the search waits a moment, then reads the primary (it sees every committed write).
    paused = report["while_paused"]
    assert paused["refs"] == ["quo-1"] and paused["replica_chunk_reads"] == 0
    assert paused["primary_chunk_reads"] > 0
    # Replayed, the standby answers again.
    assert report["after_resume"]["refs"] == ["quo-1"]
    assert report["after_resume"]["replica_chunk_reads"] > 0
    assert report["after_resume"]["primary_chunk_reads"] == 0
    # The standby's backend terminated in the middle of a search: it is run again on the
    # primary, and the next search leaves the replica alone.
    killed = report["replica_killed_midway"]
    assert killed["killed"] == 1 and killed["refs"] == ["quo-1"]
    assert killed["primary_chunk_reads"] > 0
    assert report["right_after"]["refs"] == ["quo-1"]
    assert report["right_after"]["replica_chunk_reads"] == 0

    # A "replica" that is not a standby (the primary's own URL, say after a failover) is
    # not used: the search reads the primary.
    primary = cluster.url(cluster.primary_port)
    not_standby = _probe(cluster, "fallback", DATABASE_REPLICA_URL=primary)["fallback"]
    assert not_standby["refs"] == ["quo-1"] and not_standby["replica_chunk_reads"] == 0
    # Nor one reached as a role row-level security does not bind (a superuser).
    superuser = cluster.url(cluster.replica_port, "postgres")
    unbound = _probe(cluster, "fallback", DATABASE_REPLICA_URL=superuser)["fallback"]
    assert unbound["refs"] == ["quo-1"] and unbound["replica_chunk_reads"] == 0

    # The standby goes away: search still answers, from the primary.
    cluster.ctl("standby", "stop")
    fallback = _probe(cluster, "fallback")["fallback"]
    assert fallback == {"refs": ["quo-1"], "replica_chunk_reads": 0,
                        "primary_chunk_reads": fallback["primary_chunk_reads"]}  # fmt: skip
    assert fallback["primary_chunk_reads"] > 0
