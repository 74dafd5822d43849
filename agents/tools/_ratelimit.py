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

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext

from agents.models import ToolCallMark
from agents.tools.errors import ToolError

WINDOW = dt.timedelta(seconds=60)
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
