"""Run by tests/search/test_replica.py in a process of its own, with DATABASE_URL naming a
primary and DATABASE_REPLICA_URL its streaming standby (the embedded binaries on TCP).

``python -m tests.search.replica_probe STEP``; prints one JSON object. ``PROBE_ADMIN_PRIMARY``
and ``PROBE_ADMIN_REPLICA``: superuser conninfos, to read WAL positions and pause replay.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup()

import psycopg  # noqa: E402
from django.db import connections  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from agents.tools.registry import call_tool  # noqa: E402
from search.replica import read_connection, replica_reads  # noqa: E402
from tests.helpers.contracts import ingest_entries  # noqa: E402
from workspaces.models import User, Workspace  # noqa: E402
from workspaces.services import (  # noqa: E402
    firm_get_or_create,
    user_get_or_create,
    workspace_create,
)
from workspaces.tenancy import user_scope  # noqa: E402

TEXT = "SERVICES AGREEMENT\n\nARTICLE 1 — {word}\nThe {word} clause binds the parties.\n"


def _room(firm: str, email: str, slug: str) -> tuple[Workspace, User]:
    firm_row, _ = firm_get_or_create(name=firm)
    user, _ = user_get_or_create(email=email, firm=firm_row)
    workspace, _ = workspace_create(firm=firm_row, slug=slug, title=slug, owner=user)
    return workspace, user


def _ingest(workspace: Workspace, ref: str, word: str) -> None:
    entry = {"id": ref, "filename": f"{ref}.txt", "title": ref, "content": TEXT.format(word=word)}
    ingest_entries(workspace, entry, label=ref)


def _caught_up(timeout: float = 30.0) -> float:
    """Wait until the standby has replayed all the primary has written; returns the wait."""
    started = time.perf_counter()
    with psycopg.connect(os.environ["PROBE_ADMIN_PRIMARY"], autocommit=True) as primary:
        target = primary.execute("SELECT pg_current_wal_lsn()").fetchone()[0]  # type: ignore[index]
    with psycopg.connect(os.environ["PROBE_ADMIN_REPLICA"], autocommit=True) as replica:
        while time.perf_counter() - started < timeout:
            row = replica.execute(
                "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [target]
            ).fetchone()
            if row and row[0]:
                return time.perf_counter() - started
            time.sleep(0.05)
    raise SystemExit("the standby did not catch up")


def _replay(action: str) -> None:
    with psycopg.connect(os.environ["PROBE_ADMIN_REPLICA"], autocommit=True) as replica:
        replica.execute(f"SELECT pg_wal_replay_{action}()")


def _search(user: User, workspace: Workspace, query: str) -> dict[str, Any]:
    """The search tool as the user; which connection answered, and what it found."""
    replica = connections["replica"]
    replica.queries_log.clear()
    # Not CaptureQueriesContext for the replica: it connects first, which a stopped standby
    # refuses before the search could fall back.
    replica.force_debug_cursor = True
    try:
        with CaptureQueriesContext(connections["default"]) as on_primary:
            result = call_tool(
                name="search_data_room",
                arguments={"workspace": workspace.slug, "query": query},
                user=user,
            )
    finally:
        replica.force_debug_cursor = False
    chunk_reads = [q["sql"] for q in on_primary.captured_queries if "documents_chunk" in q["sql"]]
    return {
        "refs": sorted(hit["contract_id"] for hit in result.content["results"]),
        "replica_chunk_reads": sum("documents_chunk" in q["sql"] for q in replica.queries_log),
        "primary_chunk_reads": len(chunk_reads),
    }


def _replica_chunks(user: User) -> tuple[str, int]:
    """Chunks the replica shows in ``user``'s scope (the scope mirrored by replica_reads)."""
    with user_scope(user), replica_reads() as alias, read_connection().cursor() as cursor:
        cursor.execute("SELECT count(*) FROM documents_chunk")
        return alias, int(cursor.fetchone()[0])


def main(step: str) -> dict[str, Any]:
    workspace, user = _room("Cabinet Replica", "owner@replica.test", "replica-room")
    if step == "fallback":  # the standby is stopped: the primary answers
        return {"fallback": _search(user, workspace, "quokka")}
    _other_room, other = _room("Cabinet Other", "owner@other.test", "replica-other")
    _ingest(workspace, "zep-1", "zeppelin")
    report: dict[str, Any] = {"catch_up_s": round(_caught_up(), 3)}
    report["found"] = _search(user, workspace, "zeppelin")
    report["chunks_seen_on_replica"] = {
        "owner": _replica_chunks(user),
        "other_firm": _replica_chunks(other),
    }
    with connections["replica"].cursor() as cursor:  # no scope: RLS on the standby too
        cursor.execute("SELECT count(*), pg_is_in_recovery() FROM documents_chunk")
        report["unscoped_chunks"], report["in_recovery"] = cursor.fetchone()
    _replay("pause")
    try:
        _ingest(workspace, "quo-1", "quokka")
        report["while_paused"] = _search(user, workspace, "quokka")
    finally:
        _replay("resume")
    _caught_up()
    report["after_resume"] = _search(user, workspace, "quokka")
    killed: list[int] = []
    with connections["replica"].execute_wrapper(_terminate_on_chunk_read(killed)):
        report["replica_killed_midway"] = _search(user, workspace, "quokka")
    report["replica_killed_midway"]["killed"] = len(killed)
    report["right_after"] = _search(user, workspace, "quokka")  # left alone for a while
    return report


def _terminate_on_chunk_read(killed: list[int]) -> Any:
    """An execute wrapper that has the replica's backend terminated (a real failure, from
    the server) just before the search's first chunk read there."""

    def wrapper(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if "documents_chunk" in sql and not killed:
            pid = context["connection"].connection.info.backend_pid
            with psycopg.connect(os.environ["PROBE_ADMIN_REPLICA"], autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", [pid])
            killed.append(pid)
        return execute(sql, params, many, context)

    return wrapper


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
