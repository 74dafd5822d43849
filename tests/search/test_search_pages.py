"""The search page on the Brenalis data room: results as search_data_room gives them, the
exclusions apart, filters in the URL, bad input explained, document text escaped."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.http import QueryDict
from django.urls import reverse

from documents.models import Entity
from search.errors import InvalidSearchArguments
from search.templatetags.highlight import highlight_terms
from search.views import parse_search_request
from tests.helpers.rooms import BrenalisRoom, login
from workspaces.tenancy import workspace_scope

pytestmark = pytest.mark.django_db


def _search(room: BrenalisRoom, params: dict | list | str = "", **headers: str):
    query = params if isinstance(params, str) else urlencode(params, doseq=True)
    url = reverse("search", args=[room.workspace.slug]) + ("?" + query if query else "")
    return login(room.owner).get(url, headers=headers)


def test_query_finds_c03_with_its_article_highlighted(brenalis_room: BrenalisRoom):
    response = _search(brenalis_room, {"q": "exclusivité territoriale"})
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="hit-c03"' in page
    assert "?article=" in page and "#chunk-" in page
    assert "<mark>" in page


def test_law_not_in_french_lists_the_unknown_law_contract_apart(brenalis_room: BrenalisRoom):
    response = _search(brenalis_room, {"law_not_in": "droit français"})
    assert response.status_code == 200
    page = response.content.decode()
    unknown = page.split('id="excluded-unknown"', 1)[1].split("</section>", 1)[0]
    assert "c10" in unknown
    assert 'id="hit-c10"' not in page
    assert 'id="hit-c05"' in page  # New York law


def test_the_url_round_trips_the_filters(brenalis_room: BrenalisRoom):
    with workspace_scope(brenalis_room.workspace):
        entity = Entity.objects.filter(workspace=brenalis_room.workspace).first()
    assert entity is not None
    params = {
        "q": "loyer",
        "party": [str(entity.pk)],
        "type": ["commercial_lease"],
        "law_in": ["droit français"],
        "signed_after": "2019-01-01",
        "ends_before": "2035-12-31",
    }
    page = _search(brenalis_room, params).content.decode()
    assert f'name="party" value="{entity.pk}" checked' in page
    assert 'name="type" value="commercial_lease" checked' in page
    assert 'name="law_in" value="droit français" checked' in page
    assert 'value="2019-01-01"' in page and 'value="2035-12-31"' in page
    asked = parse_search_request(QueryDict(urlencode(params, doseq=True)))
    assert asked.query == "loyer"
    assert asked.filters.entity_ids == [entity.pk]
    assert asked.filters.governing_law is not None
    assert asked.filters.governing_law.in_ == ["droit français"]
    assert str(asked.filters.signature_date.after) == "2019-01-01"  # type: ignore[union-attr]
    assert str(asked.filters.end_date.before) == "2035-12-31"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"signed_after": "2024-13-45"}, "signed_after"),
        ({"ends_before": "demain"}, "ends_before"),
        ({"signed_after": "2025-01-01", "signed_before": "2020-01-01"}, "2025-01-01"),
        ({"party": "999999999"}, "999999999"),
        ({"party": "abc"}, "party"),
        ({"type": "contrat imaginaire"}, "contrat imaginaire"),
        ({"q": "x" * 1001}, "1000"),
        ({"q": "loyer", "offset": "-3"}, "offset"),
        ({"q": "le la les de"}, "« le »"),
    ],
)
def test_bad_input_is_explained_on_the_page(brenalis_room: BrenalisRoom, params, expected):
    response = _search(brenalis_room, params)
    assert response.status_code == 400
    page = response.content.decode()
    assert 'role="alert"' in page
    assert expected in page.split('role="alert"', 1)[1]


def test_unknown_type_lists_the_allowed_values(brenalis_room: BrenalisRoom):
    page = _search(brenalis_room, {"type": "contrat imaginaire"}).content.decode()
    assert "commercial_lease" in page.split('role="alert"', 1)[1]


def test_a_page_past_the_end_says_so(brenalis_room: BrenalisRoom):
    response = _search(brenalis_room, {"law_in": "droit français", "offset": "500"})
    assert response.status_code == 200
    assert "500" in response.content.decode().split('role="alert"', 1)[1]


def test_load_more_links_the_next_page_with_href_and_hx_get(
    brenalis_room: BrenalisRoom, monkeypatch
):
    monkeypatch.setattr("search.views.PAGE_SIZE", 5)
    page = _search(brenalis_room, {"law_in": "droit français"}).content.decode()
    assert page.count('class="hit"') == 5
    next_page = "?law_in=droit+fran%C3%A7ais&amp;offset=5"
    more = f'href="{next_page}" hx-get="{next_page}"'
    assert more in page


def test_htmx_load_more_renders_the_hits_partial(brenalis_room: BrenalisRoom):
    response = _search(brenalis_room, {"q": "contrat", "offset": "1"}, HX_REQUEST="true")
    assert response.status_code == 200
    page = response.content.decode()
    assert 'class="hit"' in page
    # The hits only (their rating buttons are forms), not the search form or the sections.
    assert 'role="search"' not in page and "excluded-unknown" not in page


def test_highlight_escapes_document_text_before_marking():
    marked = highlight_terms('<script>alert("Exclusivité")</script> exclusivite', "exclusivité")
    assert "<script>" not in marked
    assert "&lt;script&gt;" in marked
    assert marked.count("<mark>") == 2
    assert highlight_terms("Œuvre <b>", "oeuvre") == "<mark>Œuvre</mark> &lt;b&gt;"


def test_outsider_gets_404(brenalis_room: BrenalisRoom):
    url = reverse("search", args=[brenalis_room.workspace.slug]) + "?q=loyer"
    assert login(brenalis_room.outsider).get(url).status_code == 404


def test_search_page_queries_do_not_grow_with_results(
    brenalis_room: BrenalisRoom, django_assert_max_num_queries
):
    client = login(brenalis_room.owner)
    url = reverse("search", args=[brenalis_room.workspace.slug])
    # A constant number whatever the results: the query's word check, the conditions read
    # from it (the room's laws, types and parties), the form, the search and its cut.
    with django_assert_max_num_queries(42):
        assert client.get(url, {"q": "résiliation", "law_in": "droit français"}).status_code == 200
    with django_assert_max_num_queries(32):  # 30 today: the form's describe_data_room and
        # search_data_room, a constant number whatever the number of contracts listed
        assert client.get(url, {"signed_after": "2000-01-01"}).status_code == 200


def test_invalid_arguments_error_is_raised_for_malformed_offset():
    with pytest.raises(InvalidSearchArguments):
        parse_search_request(QueryDict("offset=deux"))


def test_a_contract_an_amendment_moved_out_of_the_window_is_listed_with_why(
    brenalis_room: BrenalisRoom,
):
    # c09 ended 2026-06-30; its amendment c18 extends it to 2028-06-30.
    page = _search(brenalis_room, {"ends_before": "2026-12-31"}).content.decode()
    section = page.split('id="excluded-by-amendment"', 1)[1].split("</section>", 1)[0]
    assert "c09" in section and "c18" in section
    assert 'id="hit-c09"' not in page


def test_a_filter_only_search_shows_the_article_that_states_the_filtered_value(
    brenalis_room: BrenalisRoom,
):
    from agents.tools import call_tool

    found = call_tool(
        name="search_data_room",
        arguments={
            "workspace": brenalis_room.workspace.slug,
            "filters": {"end_date": {"before": "2026-12-31"}},
        },
        user=brenalis_room.viewer,
    ).content
    by_ref = {hit["contract_id"]: hit for hit in found["results"]}
    c04 = by_ref["c04"]["relevant_articles"]
    assert [(a["heading"], a["justifies"], a["score"]) for a in c04] == [
        ("ARTICLE 2 — DURÉE", "end_date", None)
    ], c04
    page = _search(brenalis_room, {"ends_before": "2026-12-31"}).content.decode()
    hit = page.split('id="hit-c04"', 1)[1].split("</article>", 1)[0]
    assert "ARTICLE 2 — DURÉE" in hit
