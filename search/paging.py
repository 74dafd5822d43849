"""The bounds of a search: one page of results, and the query text. Defined here once; the
tool input models publish the same numbers."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext

from search.errors import InvalidSearchArguments

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
MAX_OFFSET = 100_000
MAX_QUERY_CHARS = 1000


@dataclass(frozen=True)
class Page:
    """``limit`` results from ``offset``; out-of-range values are refused when built."""

    limit: int = DEFAULT_LIMIT
    offset: int = 0

    def __post_init__(self) -> None:
        if not _is_int(self.limit) or not 1 <= self.limit <= MAX_LIMIT:
            message = gettext("limit must be an integer from 1 to %(max)d.")
            raise InvalidSearchArguments(message % {"max": MAX_LIMIT}, {"field": "limit"})
        if not _is_int(self.offset) or not 0 <= self.offset <= MAX_OFFSET:
            message = gettext("offset must be an integer from 0 to %(max)d.")
            raise InvalidSearchArguments(message % {"max": MAX_OFFSET}, {"field": "offset"})

    @property
    def end(self) -> int:
        """Index after the page's last result (a slice is ``[offset:end]``)."""
        return self.offset + self.limit

    def next_offset(self, total: int) -> int | None:
        """Where the next page starts, or None after the last one."""
        return self.end if self.end < total else None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def clean_query(query: str | None) -> str | None:
    """The query without control characters; None when nothing is left."""
    if query is None:
        return None
    if not isinstance(query, str):
        raise InvalidSearchArguments(gettext("query must be a string."), {"field": "query"})
    query = "".join(ch for ch in query if ch.isprintable() or ch in "\n\t").strip()
    if len(query) > MAX_QUERY_CHARS:
        message = gettext("query is too long (%(count)d characters, at most %(max)d).")
        raise InvalidSearchArguments(
            message % {"count": len(query), "max": MAX_QUERY_CHARS}, {"field": "query"}
        )
    return query or None
