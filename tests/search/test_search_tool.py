"""search_data_room and its companions on a small room: filters, unknowns, bad input."""

from __future__ import annotations

import pytest
from django.utils import translation

from agents.tools import ToolError, call_tool
from documents.models import Chunk
from tests.helpers.contracts import ingest_lease_and_nda
from tests.helpers.rooms import Room
from tests.helpers.search import search
from workspaces.tenancy import tenant_scope

pytestmark = pytest.mark.django_db


@pytest.fixture
def loaded(room: Room) -> Room:
    ingest_lease_and_nda(room.workspace)
    return room


def test_without_query_lists_every_contract_in_stable_order(loaded: Room):
    body = search(loaded)
    assert [r["contract_id"] for r in body["results"]] == ["c01", "c02"]
    assert body["total_results"] == body["total_candidates"] == 2
    assert body["next_offset"] is None
    first = search(loaded, limit=1)
    second = search(loaded, limit=1, offset=first["next_offset"])
    assert [first["results"][0]["contract_id"], second["results"][0]["contract_id"]] == [
        "c01",
        "c02",
    ]


def test_law_filter_reports_matches_in_words(loaded: Room):
    body = search(loaded, filters={"governing_law": {"in": ["droit anglais"]}})
    assert [r["contract_id"] for r in body["results"]] == ["c02"]
    assert body["results"][0]["matched_filters"] == ["loi droit anglais (∈ droit anglais)"]


def test_end_date_filter_lists_unknown_separately(loaded: Room):
    body = search(loaded, filters={"end_date": {"after": "2025-01-01"}})
    assert [r["contract_id"] for r in body["results"]] == ["c01"]
    assert body["excluded_unknown"] == [
        {
            "contract_id": "c02",
            "title": "NDA — Boutique Beta / Gamma Ltd",
            "unknown_fields": ["end_date"],
            "reasons": {"end_date": "non indiqué dans le texte"},
        }
    ]


def test_entity_filter_needs_every_entity(loaded: Room):
    describe = call_tool(name="describe_data_room", arguments={}, user=loaded.viewer).content
    ids = {e["name"]: e["entity_id"] for e in describe["entities"]}
    both = search(loaded, filters={"entity_ids": [ids["Boutique Beta SARL"], ids["Gamma Ltd"]]})
    assert [r["contract_id"] for r in both["results"]] == ["c02"]
    assert describe["unknown"]["end_date"] == 1
    # Data-room labels become vocabulary keys, named in the caller's language.
    assert {(t["value"], t["label"]) for t in describe["contract_types"]} == {
        ("commercial_lease", "Bail commercial"),
        ("nda", "Accord de confidentialité"),
    }


def test_query_ranks_the_right_article_and_cites_it(loaded: Room):
    body = search(loaded, query="loyer annuel")
    top = body["results"][0]
    assert top["contract_id"] == "c01"
    article = top["relevant_articles"][0]
    assert article["heading"].startswith("ARTICLE 2") and article["page"] == 1
    assert "loyer" in article["excerpt"].lower()
    contract = call_tool(
        name="get_contract",
        arguments={"contract_id": "c01", "chunk_ids": [article["chunk_id"]]},
        user=loaded.viewer,
    ).content
    assert [a["chunk_id"] for a in contract["articles"]] == [article["chunk_id"]]


BAD_ARGUMENTS = [
    ({"filters": {"governing_law": {"in": ["droit martien"]}}}, "allowed"),
    ({"filters": {"contract_types": ["bail rural"]}}, "commercial_lease"),
    ({"filters": {"entity_ids": [999999]}}, "describe_data_room"),
    ({"filters": {"end_date": {"before": "31/12/2026"}}}, "end_date"),
    ({"filters": {"end_date": {"after": "2027-01-01", "before": "2026-01-01"}}}, "later"),
    ({"filters": {"colour": "red"}}, "colour"),
    ({"filters": {"document_ids": ["c99"]}}, "c99"),
    ({"limit": 0}, "limit"),
    ({"limit": 1000}, "limit"),
    ({"offset": -1}, "offset"),
    ({"query": "x" * 10_000}, "query"),
    ({"query": 42}, "query"),
]
HOSTILE_QUERIES = [
    "'; DROP TABLE documents_chunk; --",
    "loyer & | ! :* <->",
    '"unclosed quote',
]
# Nothing a clause could be found by: refused with a reason, not answered with every contract.
NO_CONTENT_QUERIES = ["le la les de", "!!! ??? ...", "-", "OR OR OR", "the of and", "l' d' à"]


def test_bad_arguments_are_clear_errors(loaded: Room):
    # One room for all cases: the data is not what is being tested here.
    for arguments, fragment in BAD_ARGUMENTS:
        with translation.override("en"), pytest.raises(ToolError) as error:
            search(loaded, **arguments)
        assert error.value.kind == "invalid_arguments", arguments
        assert fragment in error.value.message + str(error.value.details), arguments


def test_hostile_queries_never_fail(loaded: Room):
    for query in HOSTILE_QUERIES:
        body = search(loaded, query=query)
        assert body["total_results"] >= 0, query
        assert isinstance(body["results"], list), query


def test_a_query_of_only_common_words_is_refused_with_its_reason(loaded: Room):
    for query in NO_CONTENT_QUERIES:
        with pytest.raises(ToolError) as refused:
            search(loaded, query=query)
        assert refused.value.kind == "invalid_arguments", query
        assert refused.value.details == {"field": "query", "reason": "no_content_word"}, query
    # One content word is enough, in either language, and digits count.
    for query in ("le loyer", "the rent", "2024"):
        assert search(loaded, query=query)["total_results"] >= 0


def test_get_contract_unknown_and_foreign_are_the_same_error(loaded: Room):
    ingest_lease_and_nda(loaded.foreign_workspace)
    errors = []
    for contract_id in ("c01", "c77"):
        try:
            call_tool(
                name="get_contract",
                arguments={"workspace": "deal-beta", "contract_id": contract_id},
                user=loaded.viewer,
            )
        except ToolError as exc:
            errors.append(exc.as_dict())
    assert errors[0]["error"] == "not_found" and errors[0] == errors[1] | {
        "message": errors[0]["message"]
    }


def test_viewer_of_nothing_cannot_search(room: Room):
    with pytest.raises(ToolError) as error:
        call_tool(name="search_data_room", arguments={}, user=room.outsider)
    assert error.value.kind == "invalid_arguments"
    assert error.value.details["allowed"] == []


def test_get_contract_pages_its_articles_with_a_working_cursor(loaded: Room, settings):
    settings.LEXROOM_ARTICLES_PER_PAGE = 2
    with tenant_scope(workspace_ids=[loaded.workspace.pk]):
        every_chunk = list(
            Chunk.objects.filter(document__ref="c01")
            .order_by("ordinal")
            .values_list("id", flat=True)
        )
    assert len(every_chunk) > 2
    pages, cursor = [], None
    while True:
        arguments = {"contract_id": "c01"} | ({"cursor": cursor} if cursor is not None else {})
        body = call_tool(name="get_contract", arguments=arguments, user=loaded.viewer).content
        assert body["articles_total"] == len(every_chunk)
        pages.append([article["chunk_id"] for article in body["articles"]])
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert len(pages[0]) == 2 and all(len(page) <= 2 for page in pages)
    assert [chunk_id for page in pages for chunk_id in page] == every_chunk
