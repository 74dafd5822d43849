"""The signed-in member's own ratings of the results shown (relevant / not relevant)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import timedelta

from django.utils import timezone

from search.models import RelevanceJudgment
from search.paging import clean_query
from workspaces.models import User, Workspace


def query_digest(query: str) -> str:
    """The key a judgment's query is stored under (the query as :func:`clean_query` left it)."""
    return hashlib.sha256(query.encode()).hexdigest()


def ratings_for_results(
    *, workspace: Workspace, user: User, query: str | None, chunk_ids: Sequence[int]
) -> dict[int, bool]:
    """chunk id -> the user's rating for ``query``, for the rated ones among ``chunk_ids``."""
    cleaned = clean_query(query)
    if cleaned is None or not chunk_ids:
        return {}
    rows = RelevanceJudgment.objects.filter(
        workspace=workspace,
        user=user,
        query_sha256=query_digest(cleaned),
        chunk_id__in=list(chunk_ids),
    ).values_list("chunk_id", "relevant")
    return dict(rows)


def ratings_last_minute(*, workspace: Workspace, user: User) -> int:
    """How many ratings ``user`` set in ``workspace`` within the last minute (a rate limit)."""
    since = timezone.now() - timedelta(minutes=1)
    return RelevanceJudgment.objects.filter(
        workspace=workspace, user=user, updated_at__gte=since
    ).count()
