"""Tool calls per minute, per user (every token and session of theirs together), shared by
every process.

Each accepted call leaves a mark (``ToolCallMark``); one statement counts the key's marks of
the last sixty seconds and adds this call's when under the limit: a true sliding window in
Postgres, so web processes, the MCP server and workers share one limit, for one round trip
per call. No hot counter row is locked (a request's transaction would hold it). Parallel
calls of one user can each pass the same count: the limit may be overshot by the calls
made at the very same moment. Marks older than two minutes are deleted now and then.
"""

from __future__ import annotations

import datetime as dt
import random
import threading

from django.conf import settings
from django.db import connection
from django.utils import timezone
from django.utils.translation import gettext

from agents.models import ToolCallMark
from agents.tools.errors import ToolError

WINDOW = dt.timedelta(seconds=60)
KEEP = dt.timedelta(minutes=2)
CLEANUP_ONE_IN = 200
# Counts the recent marks (up to the limit) and inserts this call's when there is room.
_COUNT_AND_MARK = """
WITH recent AS (
    SELECT at FROM agents_toolcallmark
    WHERE key = %(key)s AND at > %(since)s ORDER BY at LIMIT %(limit)s
), seen AS (SELECT count(*) AS calls, min(at) AS first FROM recent),
marked AS (
    INSERT INTO agents_toolcallmark (key, at)
    SELECT %(key)s, %(now)s FROM seen WHERE calls < %(limit)s RETURNING 1
)
SELECT calls, first FROM seen
"""
# Keys refused since their last accepted call, in this process: a client hammering past its
# limit gets one audited refusal per process, not one audit row per call.
_refusing: set[str] = set()
_refusing_lock = threading.Lock()


def _rate_limit(key: str) -> None:
    limit = settings.LEXROOM_TOOL_RATE_PER_MINUTE
    if not limit:
        return
    key = key[:80]
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute(_COUNT_AND_MARK, {"key": key, "since": now - WINDOW, "limit": limit,
                                         "now": now})  # fmt: skip
        calls, first = cursor.fetchone()
    if calls >= limit:
        retry_after = max(1.0, (first + WINDOW - now).total_seconds())
        message = gettext(
            "Too many tool calls (limit %(limit)d per minute); retry in %(seconds).0f s."
        )
        refusal = ToolError(
            "rate_limited",
            message % {"limit": limit, "seconds": retry_after},
            retry_after=retry_after,
        )
        with _refusing_lock:
            refusal.audited = key not in _refusing
            _refusing.add(key)
        raise refusal
    with _refusing_lock:
        _refusing.discard(key)
    if random.randrange(CLEANUP_ONE_IN) == 0:  # noqa: S311 - load spreading, not security
        ToolCallMark.objects.filter(at__lt=now - KEEP).delete()
