"""Tool calls per minute, per token (or per user without one), shared by every process.

Each call inserts a mark (``ToolCallMark``) and counts the key's marks of the last sixty
seconds: a true sliding window in Postgres, so web processes, the MCP server and workers
share one limit. Inserts never wait on one another (no hot counter row to lock, even inside
a request's transaction); marks older than two minutes are deleted now and then.
"""

from __future__ import annotations

import datetime as dt
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import connection
from django.utils import timezone
from django.utils.translation import gettext

from agents.models import ToolCallMark
from agents.tools.errors import ToolError
from workspaces.locks import LockNamespace

WINDOW = dt.timedelta(seconds=60)
LOCK_NAMESPACE = int(LockNamespace.TOOL_RATE)
KEEP = dt.timedelta(minutes=2)
CLEANUP_ONE_IN = 200
# Keys refused since their last accepted call, in this process: a client hammering past its
# limit gets one audited refusal per process, not one audit row per call.
_refusing: set[str] = set()
_refusing_lock = threading.Lock()


def _rate_limit(key: str) -> None:
    limit = settings.LEXROOM_TOOL_RATE_PER_MINUTE
    if not limit:
        return
    with _counting(key):
        _check_and_mark(key, limit)


@contextmanager
def _counting(key: str) -> Iterator[None]:
    """One count-and-mark at a time per key, across processes (a session advisory lock:
    parallel calls of one token must not all pass the same count)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s, hashtext(%s))", [LOCK_NAMESPACE, key])
        try:
            yield
        finally:
            cursor.execute("SELECT pg_advisory_unlock(%s, hashtext(%s))", [LOCK_NAMESPACE, key])


def _check_and_mark(key: str, limit: int) -> None:
    now = timezone.now()
    since = now - WINDOW
    recent = list(
        ToolCallMark.objects.filter(key=key, at__gt=since)
        .order_by("at")
        .values_list("at", flat=True)[:limit]
    )
    if len(recent) >= limit:
        retry_after = max(1.0, (recent[0] + WINDOW - now).total_seconds())
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
    ToolCallMark.objects.create(key=key[:80], at=now)
    if random.randrange(CLEANUP_ONE_IN) == 0:  # noqa: S311 - load spreading, not security
        ToolCallMark.objects.filter(at__lt=now - KEEP).delete()
