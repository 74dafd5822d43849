"""Tool calls per minute, per token (or per user without one): a sliding window per process."""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass, field

from django.conf import settings
from django.utils.translation import gettext

from agents.tools.errors import ToolError


@dataclass
class _Window:
    calls: deque[float] = field(default_factory=deque)
    refusing: bool = False  # the first refusal of this run was audited


_windows: dict[str, _Window] = {}
_windows_lock = threading.Lock()


def _rate_limit(key: str) -> None:
    """Sliding one-minute window, per process (each web process counts its own calls)."""
    limit = settings.LEXROOM_TOOL_RATE_PER_MINUTE
    if not limit:
        return
    now = time.monotonic()
    with _windows_lock:
        window = _windows.setdefault(key, _Window())
        while window.calls and now - window.calls[0] > 60:
            window.calls.popleft()
        if len(window.calls) >= limit:
            retry_after = 60 - (now - window.calls[0])
            message = gettext(
                "Too many tool calls (limit %(limit)d per minute); retry in %(seconds).0f s."
            )
            refusal = ToolError(
                "rate_limited",
                message % {"limit": limit, "seconds": retry_after},
                retry_after=retry_after,
            )
            refusal.audited = not window.refusing
            window.refusing = True
            raise refusal
        window.refusing = False
        window.calls.append(now)
