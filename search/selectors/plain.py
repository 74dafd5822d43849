"""The search selectors over plain JSON (dict filters, ``limit``/``offset``, dict results),
for scripts such as the evals and benchmarks; the tools use the typed selectors."""

from __future__ import annotations

from typing import Any

from search import selectors
from search.filters import parse_filters
from search.paging import DEFAULT_LIMIT, Page
from search.results import as_json
from workspaces.models import Workspace


def search_data_room(
    *,
    workspace: Workspace,
    query: str | None = None,
    filters: dict[str, Any] | None = None,
    limit: int = DEFAULT_LIMIT,
    offset: int = 0,
    include_weak: bool = False,
) -> dict[str, Any]:
    page = Page(limit=limit, offset=offset)
    result = selectors.search_data_room(
        workspace=workspace,
        query=query,
        filters=parse_filters(filters),
        page=page,
        include_weak=include_weak,
    )
    return as_json(result)


def describe_data_room(*, workspace: Workspace) -> dict[str, Any]:
    return as_json(selectors.describe_data_room(workspace=workspace))


def get_contract(
    *,
    workspace: Workspace,
    contract_id: str,
    chunk_ids: list[int] | None = None,
    cursor: int | None = None,
) -> dict[str, Any]:
    result = selectors.get_contract(
        workspace=workspace, contract_id=contract_id, chunk_ids=chunk_ids, cursor=cursor
    )
    return as_json(result)


def find_duplicates(*, workspace: Workspace, entity_ids: list[int] | None = None) -> dict[str, Any]:
    return as_json(selectors.find_duplicates(workspace=workspace, entity_ids=entity_ids))
