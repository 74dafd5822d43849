"""Small HTTP facts the apps share."""

from __future__ import annotations

import math


def retry_after(seconds: float) -> str:
    """A ``Retry-After`` value: whole seconds, rounded up, never below one (what the error's
    own message says, never sooner)."""
    return str(max(1, math.ceil(seconds)))
