"""The tools: thin handlers over the search selectors, with descriptions written for LLMs."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from pydantic import BaseModel, ConfigDict, Field

from agents.tools.registry import Tool, ToolContext, ToolError, register
from search import selectors
from search.conditions import FIELDS, InterpretableField
from search.errors import InvalidSearchArguments, ResultNotFound
from search.filters import SearchFilters
from search.paging import DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, MAX_QUERY_CHARS, Page
from search.results import (
    ContractView,
    DataRoomDescription,
    DuplicateGroups,
    SearchResults,
    as_json,
)
from search.services import judgment_set
from workspaces.models import Role
from workspaces.selectors import workspace_list_with_roles

WORKSPACE_FIELD = Field(
    default=None,
    description="Workspace slug (from list_workspaces). Optional when you have only one.",
    max_length=80,
)


class _Input(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class ListWorkspacesInput(_Input):
    pass


class WorkspaceInput(_Input):
    workspace: str | None = WORKSPACE_FIELD


class SearchInput(WorkspaceInput):
    query: str | None = Field(
        default=None,
        description="Words or a question about clause content, in French or English. Omit it "
        "to list every contract that passes the filters.",
        max_length=MAX_QUERY_CHARS,
    )
    filters: SearchFilters | None = Field(
        default=None,
        description="Metadata filters, all combined with AND. Values come from "
        "describe_data_room: entity_ids (every one must be a party), contract_types (any), "
        "governing_law {in, not_in}, signature_date / end_date {after, before} "
        "(inclusive YYYY-MM-DD; end_date is the effective end after amendments), "
        "document_ids (contract ids such as c04), clause_types (any of these clause-type "
        "keys, such as cap_on_liability or indemnification: contracts with such an article, "
        "and only those articles are ranked).",
    )
    limit: int = Field(default=DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="Results per page.")
    offset: int = Field(default=0, ge=0, le=MAX_OFFSET, description="From next_offset.")
    interpret: bool = Field(
        default=True,
        description="Read conditions written in the query (governing law, signature and end "
        "dates, contract types, parties of this data room) as filters, and rank only the "
        "words left; see interpreted_filters in the result. false: rank the query as written.",
    )
    not_interpreted: list[InterpretableField] = Field(
        default_factory=list,
        description="Fields not to read from the query (their words stay in the ranked "
        "text), e.g. a field of interpreted_filters that was misread.",
        max_length=len(FIELDS),
    )
    include_weak: bool = Field(
        default=False,
        description="With a query: also list the contracts that matched only weakly (counted "
        "in weak_matches_left_out otherwise). Leave false to list the contracts whose "
        "articles answer the query.",
    )


class GetContractInput(WorkspaceInput):
    contract_id: str = Field(description="Contract id, e.g. c04.", max_length=32)
    chunk_ids: list[int] | None = Field(
        default=None,
        description="Only these articles (chunk_id from search results). Omit for the full text.",
        max_length=200,
    )
    cursor: int | None = Field(
        default=None,
        ge=0,
        description="next_cursor from the previous get_contract call, to read the next page "
        "of articles. Omit for the first page.",
    )


class FindDuplicatesInput(WorkspaceInput):
    entity_ids: list[int] | None = Field(
        default=None,
        description="Only groups whose contracts involve all these entities.",
        max_length=50,
    )


class RateResultInput(WorkspaceInput):
    query: str = Field(
        description="The query exactly as you searched it (search_data_room's `query`).",
        max_length=MAX_QUERY_CHARS,
    )
    chunk_id: int = Field(description="chunk_id of the article, from relevant_articles.", ge=1)
    relevant: bool | None = Field(
        default=None,
        description="true: the article answers the query; false: it does not. Required "
        "unless remove is true.",
    )
    remove: bool = Field(default=False, description="true: withdraw your rating instead.")


class RatingResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    workspace: str
    query: str
    chunk_id: int
    contract_id: str
    relevant: bool | None = Field(description="Your rating now; null: not rated.")


class WorkspaceEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    workspace: str = Field(description="Slug to pass as `workspace` to the other tools.")
    title: str
    role: str | None


class WorkspaceList(BaseModel):
    model_config = ConfigDict(extra="forbid")
    workspaces: list[WorkspaceEntry]


def _list_workspaces(context: ToolContext, _: ListWorkspacesInput) -> dict[str, Any]:
    workspaces = workspace_list_with_roles(user=context.user)
    listing = WorkspaceList(
        workspaces=[
            WorkspaceEntry(workspace=w.slug, title=w.title, role=getattr(w, "member_role", None))
            for w in workspaces
        ]
    )
    return as_json(listing)


def _describe(context: ToolContext, _: WorkspaceInput) -> dict[str, Any]:
    assert context.workspace is not None  # noqa: S101 - guaranteed by needs_workspace
    return as_json(selectors.describe_data_room(workspace=context.workspace))


def _search(context: ToolContext, arguments: SearchInput) -> dict[str, Any]:
    assert context.workspace is not None  # noqa: S101
    result = selectors.search_data_room(
        workspace=context.workspace,
        query=arguments.query,
        filters=arguments.filters,
        page=Page(limit=arguments.limit, offset=arguments.offset),
        interpret_query=arguments.interpret,
        not_interpreted=arguments.not_interpreted,
        include_weak=arguments.include_weak,
    )
    return as_json(result)


def _get_contract(context: ToolContext, arguments: GetContractInput) -> dict[str, Any]:
    assert context.workspace is not None  # noqa: S101
    result = selectors.get_contract(
        workspace=context.workspace,
        contract_id=arguments.contract_id,
        chunk_ids=arguments.chunk_ids,
        cursor=arguments.cursor,
    )
    return as_json(result)


def _find_duplicates(context: ToolContext, arguments: FindDuplicatesInput) -> dict[str, Any]:
    assert context.workspace is not None  # noqa: S101
    result = selectors.find_duplicates(workspace=context.workspace, entity_ids=arguments.entity_ids)
    return as_json(result)


def _rate_result(context: ToolContext, arguments: RateResultInput) -> dict[str, Any]:
    assert context.workspace is not None  # noqa: S101
    if arguments.remove == (arguments.relevant is not None):
        raise InvalidSearchArguments(
            gettext("Pass relevant (true or false), or remove: true, not both."),
            {"field": "relevant", "allowed": [True, False]},
        )
    try:
        chunk, _judgment = judgment_set(
            workspace=context.workspace,
            user=context.user,
            query=arguments.query,
            chunk_id=arguments.chunk_id,
            relevant=arguments.relevant,
        )
    except ResultNotFound:
        message = gettext(
            "No article %(chunk_id)d in this workspace: use a chunk_id from "
            "search_data_room's relevant_articles."
        )
        raise ToolError(
            "not_found", message % {"chunk_id": arguments.chunk_id}, {"field": "chunk_id"}
        ) from None
    rating = RatingResult(
        workspace=context.workspace.slug,
        query=arguments.query,
        chunk_id=chunk.pk,
        contract_id=chunk.document.ref,
        relevant=arguments.relevant,
    )
    return as_json(rating)


register(
    Tool(
        name="list_workspaces",
        description="List the workspaces (data rooms, matters) you can search, with your role.",
        input_model=ListWorkspacesInput,
        output_model=WorkspaceList,
        handler=_list_workspaces,
        needs_workspace=False,
    )
)
register(
    Tool(
        name="describe_data_room",
        description="Describe a data room before searching it: its parties (entity_id, name, "
        "aliases, SIREN), contract types, governing laws, date ranges, how many contracts "
        "have each field unknown, amendments, duplicate groups and articles per clause type "
        "(empty until a clause-type classifier is trained). Use the values it returns "
        "to fill search_data_room filters.",
        input_model=WorkspaceInput,
        output_model=DataRoomDescription,
        handler=_describe,
    )
)
register(
    Tool(
        name="search_data_room",
        description="Find contracts in a data room. With filters only, it lists EVERY "
        "matching contract (paged; follow next_offset), plus excluded_unknown (contracts "
        "whose filtered field is unknown: mention them) and excluded_by_amendment (moved out "
        "by an amendment). With a query, contracts are ranked by their most relevant "
        "articles (relevant_articles: chunk_id, heading, page, excerpt, clause_types). "
        'Conditions written in the query ("governed by New York law", "signés avant '
        '2015", "baux commerciaux", a party\'s name) are applied as filters and listed '
        "in interpreted_filters; query in the result is the text left to rank (null: none "
        "left, every matching contract is listed). Contracts that matched only weakly are "
        "left out and counted in weak_matches_left_out (include_weak lists them). Cite "
        "contract_id, heading and page.",
        input_model=SearchInput,
        output_model=SearchResults,
        handler=_search,
    )
)
register(
    Tool(
        name="get_contract",
        description="Read one contract: metadata, amendments and their explanations, "
        "warnings (contradictions between metadata and text), and the full text by article "
        "or only the articles given by chunk_ids. Articles come a page at a time "
        "(articles_total says how many in all): while next_cursor is not null, call again "
        "with cursor=next_cursor for the next ones.",
        input_model=GetContractInput,
        output_model=ContractView,
        handler=_get_contract,
    )
)
register(
    Tool(
        name="find_duplicates",
        description="Groups of duplicate contracts in a data room (same text, near-identical "
        "text, translations) with the reason for each group. Nothing is ever deleted.",
        input_model=FindDuplicatesInput,
        output_model=DuplicateGroups,
        handler=_find_duplicates,
    )
)
register(
    Tool(
        name="rate_result",
        description="Mark one search result (an article, by chunk_id) as relevant or not "
        "relevant to a query, for the firm's search to learn from. Rating the same query and "
        "article again replaces your rating; remove=true withdraws it. Changes data.",
        input_model=RateResultInput,
        output_model=RatingResult,
        handler=_rate_result,
        min_role=Role.VIEWER,
        read_only=False,
    )
)
