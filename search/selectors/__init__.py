"""The search tools' reads: search_data_room, describe_data_room, get_contract, find_duplicates;
and a member's own ratings of results (ratings_for_results).

Every function takes a workspace the caller already has access to and runs inside its
tenant scope; none knows whether MCP, REST, the CLI or the agent called it. Arguments are
typed (:class:`~search.filters.SearchFilters`, :class:`~search.paging.Page`) and so are the
results (:mod:`search.results`); callers serialise them. Bad arguments raise
:class:`~search.errors.InvalidSearchArguments`. :mod:`search.selectors.plain` takes and
returns plain JSON, for scripts.
"""

from __future__ import annotations

from search.selectors._common import SEARCHABLE, searchable_documents
from search.selectors._contract import find_duplicates, get_contract
from search.selectors._describe import describe_data_room
from search.selectors._filtering import Selection, select, vocabulary
from search.selectors._judgments import (
    query_digest,
    ratings_for_results,
    ratings_last_minute,
)
from search.selectors._search import ARTICLES_PER_CONTRACT, search_data_room

__all__ = [
    "ARTICLES_PER_CONTRACT",
    "SEARCHABLE",
    "Selection",
    "describe_data_room",
    "find_duplicates",
    "get_contract",
    "query_digest",
    "ratings_for_results",
    "ratings_last_minute",
    "search_data_room",
    "searchable_documents",
    "select",
    "vocabulary",
]
