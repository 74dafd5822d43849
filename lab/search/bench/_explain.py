"""EXPLAIN (ANALYZE, BUFFERS) of the slowest statement behind one call."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.db import connection
from django.test.utils import override_settings

from lab.search.bench._latency import timed
from lab.search.bench._workload import Call
from workspaces.models import Workspace
from workspaces.tenancy import workspace_scope


class _StatementLog:
    """Statements run on the connection, with their durations (for EXPLAIN)."""

    def __init__(self) -> None:
        self.statements: list[tuple[float, str, Any]] = []

    def __call__(
        self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any
    ) -> Any:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.statements.append((time.perf_counter() - started, sql, params))


def _shorten(line: str, width: int = 300) -> str:
    return line if len(line) <= width else f"{line[:width]}..."


def explain(workspace: Workspace, slowest: tuple[str, Call] | None) -> dict[str, Any]:
    """EXPLAIN (ANALYZE, BUFFERS) of the slowest statement of the slowest arm's worst call."""
    if slowest is None:
        return {}
    arm, call = slowest
    log = _StatementLog()
    with override_settings(LEXROOM_RERANK="off"), connection.execute_wrapper(log):
        timed(workspace, call)
    settings_sql = [entry for entry in log.statements if entry[1].startswith("SET LOCAL")]
    queries = [
        entry
        for entry in log.statements
        if entry[1].lstrip().upper().startswith(("SELECT", "WITH")) and "set_config" not in entry[1]
    ]
    if not queries:
        return {"arm": arm}
    seconds, sql, params = max(queries, key=lambda entry: entry[0])
    with workspace_scope(workspace), connection.cursor() as cursor:
        # Replay the call's SET LOCALs so the plan is the one the call got.
        for _, setting, setting_params in settings_sql:
            cursor.execute(setting, setting_params)
        cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql}", params)
        # Vector literals make plan lines kilobytes long: the shape is what matters.
        plan = [_shorten(str(row[0])) for row in cursor.fetchall()]
    return {
        "arm": arm,
        "statements": len(queries),
        "slowest_statement_ms": round(seconds * 1000, 2),
        "sql": " ".join(sql.split())[:400],
        "plan": plan[:40],
    }
