"""Each rater's share of the ratings a fit uses is capped, so one member cannot steer the
firm's ranking (``LEXROOM_ADAPTER_MAX_USER_SHARE``).

The cap is a water level ``L``: every rater keeps ``min(ratings, L)``, with ``L`` the largest
level at which nobody holds more than the share of what is kept. A rater above ``L`` keeps a
deterministic sample: their ratings ordered by a hash of (rater, query), then article, so
whole queries are kept together (a query cut in half teaches no order) and the same data
gives the same sample on every run.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Rating:
    user_id: int
    query: str
    chunk_id: int
    relevant: bool


@dataclass(frozen=True)
class RaterUse:
    """How many of a rater's ratings there were, and how many the fit uses."""

    user_id: int
    judgments: int
    used: int


def quota_level(counts: Iterable[int], *, max_share: float) -> int:
    """The largest ``L`` with ``L <= max_share * sum(min(c, L))``: 0 when no level works
    (fewer than ``1 / max_share`` raters). ``max_share`` 1: no cap."""
    ordered = sorted(counts)
    if not ordered:
        return 0

    def fits(level: int) -> bool:
        kept = sum(min(count, level) for count in ordered)
        return level <= max_share * kept + 1e-9

    # sum(min(c, L)) is concave in L, so the levels that fit are one interval from 0.
    low, high = 0, ordered[-1]
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def _sample_key(rating: Rating) -> tuple[str, int]:
    digest = hashlib.sha256(f"{rating.user_id}:{rating.query}".encode()).hexdigest()
    return digest, rating.chunk_id


def ratings_within_quota(
    ratings: Iterable[Rating], *, max_share: float
) -> tuple[list[Rating], list[RaterUse]]:
    """The ratings a fit may use, and each rater's counts (most ratings first)."""
    by_user: Mapping[int, list[Rating]] = defaultdict(list)
    for rating in ratings:
        by_user[rating.user_id].append(rating)
    level = quota_level((len(rows) for rows in by_user.values()), max_share=max_share)
    used: list[Rating] = []
    use: list[RaterUse] = []
    for user_id, rows in by_user.items():
        kept = sorted(rows, key=_sample_key)[:level]
        used.extend(kept)
        use.append(RaterUse(user_id=user_id, judgments=len(rows), used=len(kept)))
    use.sort(key=lambda rater: (-rater.judgments, rater.user_id))
    return used, use
