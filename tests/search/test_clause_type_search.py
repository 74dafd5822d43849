"""Searching by clause type: the any-of filter, unknown keys, tenancy, the prior's effect on
order, the tags on each hit, and the counts describe_data_room gives."""

from __future__ import annotations

import pytest

from documents.clause_types import BY_KEY
from documents.models import Chunk
from search import ranking
from search.errors import InvalidSearchArguments
from search.filters import SearchFilters
from search.ranking import _prior
from search.selectors import describe_data_room, search_data_room
from tests.helpers.contracts import ingest_entries
from tests.helpers.rooms import Room
from workspaces.models import Workspace
from workspaces.tenancy import tenant_scope

pytestmark = pytest.mark.django_db

CONTRACT = (
    "SERVICES AGREEMENT\n\n"
    "ARTICLE 1 — LIABILITY\nThe liability of either party for any claim is limited.\n\n"
    "ARTICLE 2 — CLAIMS\nEach party shall handle any claim brought by a third party.\n\n"
    "ARTICLE 3 — PAYMENT\nInvoices are payable within thirty days.\n"
)


def _ingest(workspace: Workspace, ref: str) -> None:
    ingest_entries(
        workspace, {"id": ref, "filename": f"{ref}.txt", "title": "Services", "content": CONTRACT}
    )


def _tag(workspace: Workspace, article: str, types: dict[str, float]) -> int:
    with tenant_scope(workspace_ids=[workspace.pk]):
        chunk = Chunk.objects.get(workspace=workspace, heading__startswith=article)
        chunk.clause_types = types
        chunk.clause_type_keys = sorted(types)
        chunk.clause_families = {BY_KEY[key].family: value for key, value in types.items()}
        chunk.clause_types_version = "test"
        chunk.save(
            update_fields=[
                "clause_types",
                "clause_type_keys",
                "clause_families",
                "clause_types_version",
            ]
        )
        return chunk.pk


@pytest.fixture
def tagged(room: Room) -> Room:
    _ingest(room.workspace, "c01")
    _ingest(room.foreign_workspace, "f01")
    for workspace in (room.workspace, room.foreign_workspace):  # only the tags set here
        with tenant_scope(workspace_ids=[workspace.pk]):
            Chunk.objects.filter(workspace=workspace).update(
                clause_types={}, clause_type_keys=[], clause_families={}
            )
    _tag(room.workspace, "ARTICLE 1", {"cap_on_liability": 0.9})
    _tag(room.workspace, "ARTICLE 2", {"indemnification": 0.8})
    _tag(room.foreign_workspace, "ARTICLE 2", {"indemnification": 0.9})
    return room


def _search(workspace: Workspace, query: str | None, types: list[str]):
    with tenant_scope(workspace_ids=[workspace.pk]):
        return search_data_room(
            workspace=workspace, query=query, filters=SearchFilters(clause_types=types)
        )


def test_clause_type_filter_ranks_only_articles_of_those_types(tagged: Room):
    results = _search(tagged.workspace, "claim", ["indemnification"])
    assert [hit.contract_id for hit in results.results] == ["c01"]
    articles = results.results[0].relevant_articles
    assert [a.heading for a in articles] == ["ARTICLE 2 — CLAIMS"]
    assert [(t.key, t.confidence) for t in articles[0].clause_types] == [("indemnification", 0.8)]
    assert any("indemni" in reason.lower() for reason in results.results[0].matched_filters)


def test_clause_type_filter_without_query_lists_contracts_having_such_articles(tagged: Room):
    assert [
        h.contract_id for h in _search(tagged.workspace, None, ["cap_on_liability"]).results
    ] == ["c01"]
    assert _search(tagged.workspace, None, ["governing_law"]).results == []


def test_another_workspaces_tagged_chunks_never_appear(tagged: Room):
    with tenant_scope(workspace_ids=[tagged.workspace.pk]):
        hits = ranking.rank_chunks(
            workspace_id=tagged.workspace.pk,
            query="claim",
            document_ids=None,
            clause_types=["indemnification"],
        )
        own = set(Chunk.objects.filter(workspace=tagged.workspace).values_list("id", flat=True))
    assert hits and {hit.chunk_id for hit in hits} <= own


def test_an_unknown_clause_type_names_the_allowed_keys(tagged: Room):
    with pytest.raises(InvalidSearchArguments) as error:
        _search(tagged.workspace, "claim", ["indemnity"])
    assert "indemnity" in error.value.message and "filters.clause_types" in error.value.message
    assert "indemnification" in error.value.details["allowed"]


def test_the_prior_lifts_articles_of_the_querys_family(tagged: Room, monkeypatch, settings):
    monkeypatch.setattr(
        _prior, "query_families", lambda **_: {"indemnification": 1.0, "general": 0.0}
    )
    settings.LEXROOM_CLAUSE_PRIOR_WEIGHT = 1.0

    def order(use_prior: bool) -> list[int]:
        with tenant_scope(workspace_ids=[tagged.workspace.pk]):
            hits = ranking.rank_chunks(
                workspace_id=tagged.workspace.pk,
                query="liability of either party",
                document_ids=None,
                use_prior=use_prior,
            )
        return [hit.chunk_id for hit in hits]

    with tenant_scope(workspace_ids=[tagged.workspace.pk]):
        claims = Chunk.objects.get(workspace=tagged.workspace, heading__startswith="ARTICLE 2").pk
    without, with_prior = order(False), order(True)
    assert set(without) == set(with_prior)  # reordered, nothing added
    assert without[0] != claims and with_prior[0] == claims


def test_describe_counts_articles_and_contracts_per_clause_type(tagged: Room):
    with tenant_scope(workspace_ids=[tagged.workspace.pk]):
        room = describe_data_room(workspace=tagged.workspace)
    counts = {c.key: (c.articles, c.contracts) for c in room.clause_types}
    assert counts == {"cap_on_liability": (1, 1), "indemnification": (1, 1)}
    # Every article was read by the shipped classifier: the preamble and ARTICLE 3 were
    # read and carry no type here, so none is left untagged.
    assert room.articles_untagged == 0


def test_the_search_page_filters_on_clause_types_and_shows_the_tags(tagged: Room, owner_client):
    page = owner_client.get("/w/deal-alpha/search/", {"q": "claim", "clause": "indemnification"})
    assert page.status_code == 200
    html = page.content.decode()
    assert 'name="clause" value="indemnification" checked' in html
    assert "ARTICLE 2 — CLAIMS" in html and '<span class="tag"' in html
    assert "ARTICLE 1 — LIABILITY" not in html.split('id="results"')[1]
    bad = owner_client.get("/w/deal-alpha/search/", {"q": "claim", "clause": "indemnity"})
    assert bad.status_code == 400 and "indemnification" in bad.content.decode()


def test_the_viewer_shows_each_articles_clause_types(tagged: Room, owner_client):
    html = owner_client.get("/w/deal-alpha/documents/c01/").content.decode()
    assert "Indemnisation" in html  # the label in the user's language (French by default)
    assert "Plafond de responsabilité" in html
