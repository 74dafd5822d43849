"""Conditions written in a query, applied as filters: the tool returns them in
interpreted_filters and ranks the words left; explicit filters win; the search page shows
each as a chip whose remove link searches again without it; interpret=0 reads none."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.urls import reverse

from agents.tools import ToolError, call_tool
from tests.helpers.contracts import ingest_lease_and_nda
from tests.helpers.rooms import Room, login
from tests.helpers.search import contract_ids, search

pytestmark = pytest.mark.django_db


@pytest.fixture
def loaded(room: Room) -> Room:
    ingest_lease_and_nda(room.workspace)  # c01 a French commercial lease, c02 an English NDA
    return room


def test_the_tool_applies_a_law_read_from_the_query_and_ranks_the_rest(loaded: Room):
    body = search(loaded, query="information secret governed by English law")
    assert [(f["field"], f["value"], f["words"]) for f in body["interpreted_filters"]] == [
        ("governing_law", "droit anglais", "governed by English law")
    ]
    assert body["query"] == "information secret"
    assert contract_ids(body) == ["c02"]
    assert body["results"][0]["score"] is not None


def test_a_query_of_conditions_only_lists_every_matching_contract(loaded: Room):
    body = search(loaded, query="baux commerciaux signés avant 2023")
    assert [f["field"] for f in body["interpreted_filters"]] == [
        "contract_types",
        "signature_date",
    ]
    assert body["interpreted_filters"][1]["value"] == {"after": None, "before": "2022-12-31"}
    assert body["query"] is None
    assert contract_ids(body) == ["c01"]
    assert body["results"][0]["score"] is None


def test_a_party_named_in_the_query_becomes_an_entity_filter(loaded: Room):
    body = search(loaded, query="contracts with Gamma")
    (read,) = body["interpreted_filters"]
    assert read["field"] == "entity_ids"
    assert "Gamma" in read["label"]
    assert contract_ids(body) == ["c02"]


def test_an_explicit_filter_wins_over_the_words(loaded: Room):
    body = search(
        loaded,
        query="loyer governed by English law",
        filters={"governing_law": {"in": ["droit français"]}},
    )
    assert body["interpreted_filters"] == []
    assert body["query"] == "loyer governed by English law"
    # The words stay ranked: the lease holds one of the four the room knows (loyer), too
    # few for the relevance cut; it is counted, and listed when asked for.
    assert contract_ids(body) == [] and body["weak_matches_left_out"] == 1
    body = search(
        loaded,
        query="loyer governed by English law",
        filters={"governing_law": {"in": ["droit français"]}},
        include_weak=True,
    )
    assert contract_ids(body) == ["c01"]


def test_interpretation_can_be_turned_off_or_left_out_by_field(loaded: Room):
    typed = "information governed by English law"
    for arguments in ({"interpret": False}, {"not_interpreted": ["governing_law"]}):
        body = search(loaded, query=typed, **arguments)
        assert body["interpreted_filters"] == []
        assert body["query"] == typed
        assert "c02" in contract_ids(body)


def test_an_unknown_field_in_not_interpreted_is_refused_with_the_allowed_ones(loaded: Room):
    with pytest.raises(ToolError) as refused:
        search(loaded, query="loyer", not_interpreted=["governing_lawz"])
    assert "governing_law" in str(refused.value.as_dict())


def test_a_negated_condition_stays_in_the_ranked_text(loaded: Room):
    body = search(loaded, query="information not governed by French law")
    assert body["interpreted_filters"] == []
    assert body["query"] == "information not governed by French law"


def _page(room: Room, params: dict) -> str:
    url = reverse("search", args=[room.workspace.slug]) + "?" + urlencode(params, doseq=True)
    response = login(room.owner).get(url)
    assert response.status_code == 200
    return response.content.decode()


def _remove_link(page: str, field: str) -> str:
    chip = page.split(f'data-field="{field}"', 1)[1].split("</li>", 1)[0]
    return chip.split('class="chip-remove" href="', 1)[1].split('"', 1)[0].replace("&amp;", "&")


def test_the_page_shows_a_removable_chip_and_its_link_removes_it(loaded: Room):
    page = _page(loaded, {"q": "loyer des baux commerciaux"})
    assert 'id="interpreted"' in page
    assert 'data-field="contract_types"' in page
    assert 'id="hit-c01"' in page and 'id="hit-c02"' not in page
    link = _remove_link(page, "contract_types")
    assert "ignore=contract_types" in link
    url = reverse("search", args=[loaded.workspace.slug]) + link
    without = login(loaded.owner).get(url).content.decode()
    assert 'data-field="contract_types"' not in without
    assert 'name="ignore" value="contract_types"' in without  # kept by the form


def test_interpret_0_reads_no_condition_and_offers_to_read_them(loaded: Room):
    page = _page(loaded, {"q": "loyer des baux commerciaux", "interpret": "0"})
    assert 'id="interpreted"' not in page
    assert 'id="interpret-off"' in page


def test_an_unknown_ignored_field_is_refused_on_the_page(loaded: Room):
    url = reverse("search", args=[loaded.workspace.slug]) + "?q=loyer&ignore=lawz"
    response = login(loaded.owner).get(url)
    assert response.status_code == 400
    assert "governing_law" in response.content.decode()


def test_an_outsider_gets_no_interpretation_of_another_workspace(loaded: Room):
    url = reverse("search", args=[loaded.workspace.slug]) + "?q=baux+commerciaux"
    assert login(loaded.outsider).get(url).status_code == 404
    with pytest.raises(ToolError):
        call_tool(
            name="search_data_room",
            arguments={"workspace": loaded.workspace.slug, "query": "baux commerciaux"},
            user=loaded.foreigner,
        )
