"""The codes as tools (search, one article, its renvois) and as pages, on an invented code.

The code's texts are our own words (tests/sources/factories.py); a second invented code
stands for "Code civil" so that a reference to another code resolves.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from agents.tools import ToolError, call_tool
from sources.models import Renvoi
from tests.helpers.rooms import Room, login
from tests.sources.factories import import_code, import_demo, version
from workspaces.tokens import token_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def codes(room: Room) -> None:
    import_demo()
    import_code(
        version("1240", "Celui qui cause un dommage le répare (texte inventé).", None, None),
        version("1241", "Voir l'article 1240 pour la faute (texte inventé).", None, None),
        slug="code-civil",
        title="Code civil",
    )


def _tool(room: Room, name: str, **arguments: Any) -> dict[str, Any]:
    return call_tool(name=name, arguments=arguments, user=room.viewer).content


def test_renvois_are_extracted_at_import(codes):
    kinds = set(Renvoi.objects.values_list("kind", "target_code", "target_number"))
    assert ("article", "code-des-essais", "L101-3") in kinds
    assert ("range", "code-des-essais", "L101-1") in kinds
    assert ("article", "code-civil", "1240") in kinds
    assert any(kind == "text" for kind, _c, _n in kinds)


def test_get_article_gives_the_version_at_the_date_its_history_and_renvois(room, codes):
    body = _tool(
        room, "get_article", code="Code des essais", number="art. L. 101-1", as_of="2017-01-01"
    )
    article = body["article"]
    assert article["number"] == "L101-1" and "deux mois" in article["text"]
    assert [v["valid_from"] for v in article["history"]] == ["2010-01-01", "2016-03-01"]
    assert [v["current"] for v in article["history"]] == [False, True]
    (renvoi,) = article["renvois"]
    assert renvoi["targets"][0]["number"] == "L101-3" and renvoi["unresolved"] is None
    # L101-2 cites L101-1 through its range "L101-1 à L101-3".
    assert [c["number"] for c in article["cited_by"]] == ["L101-2"]
    old = _tool(room, "get_article", code="code-des-essais", number="L101-1", as_of="2015-01-01")
    assert "un mois" in old["article"]["text"] and old["article"]["renvois"] == []


def test_a_renvoi_to_a_repealed_article_says_so(room, codes):
    body = _tool(room, "get_article", code="code-des-essais", number="L101-1", as_of="2018-01-01")
    (renvoi,) = body["article"]["renvois"]
    assert renvoi["targets"] == [] and renvoi["unresolved"] == "not_in_force"


def test_get_article_errors_list_close_matches(room, codes):
    with pytest.raises(ToolError) as caught:
        _tool(room, "get_article", code="code des essai", number="L101-1")
    assert caught.value.kind == "not_found"
    assert "code-des-essais" in str(caught.value.as_dict())
    with pytest.raises(ToolError) as caught:
        _tool(room, "get_article", code="code-des-essais", number="L101-9", as_of="2017-01-01")
    assert "L101-1" in str(caught.value.as_dict())
    with pytest.raises(ToolError):
        _tool(room, "get_article", code="code-des-essais", number="???")
    with pytest.raises(ToolError) as caught:
        _tool(room, "get_article", code="code-des-essais", number="L101-1", as_of="1990-01-01")
    assert "2010-01-01" in str(caught.value.as_dict())


def test_follow_renvois_two_hops_across_codes(room, codes):
    one = _tool(room, "follow_renvois", code="code-des-essais", number="L101-2", as_of="2017-01-01")
    numbers = {(a["code"], a["number"], a["hops"]) for a in one["articles"]}
    assert ("code-civil", "1240", 1) in numbers
    assert ("code-des-essais", "L101-3", 1) in numbers
    assert all(a["text"] for a in one["articles"])
    assert any(u["unresolved"] == "text" for u in one["unresolved"])
    # L101-2 → L101-1 (range) → L101-3: already one hop away; depth 2 adds nothing new here,
    # but code civil 1241 is never reached (nothing refers to it).
    two = _tool(room, "follow_renvois", code="code-civil", number="1241", depth=2)
    assert [(a["number"], a["hops"]) for a in two["articles"]] == [("1240", 1)]
    with pytest.raises(ToolError):
        _tool(room, "follow_renvois", code="code-civil", number="1241", depth=3)


def test_search_legal_codes_only_returns_versions_in_force(room, codes):
    body = _tool(room, "search_legal_codes", query="quittance", as_of="2018-01-01")
    assert [r["number"] for r in body["results"]] == ["R101-1"]  # L101-3 repealed in 2017
    before = _tool(room, "search_legal_codes", query="quittance", as_of="2017-01-01")
    assert {r["number"] for r in before["results"]} == {"L101-3", "R101-1"}
    with pytest.raises(ToolError):
        _tool(room, "search_legal_codes", query="quittance", codes=["code inconnu"])


def test_codes_page_searches_at_a_date(room, codes):
    client = login(room.viewer)
    page = client.get("/codes/", {"q": "quittance", "as_of": "2017-01-01"})
    assert page.status_code == 200
    html = page.content.decode()
    assert "/codes/code-des-essais/L101-3/" in html and "R101-1" in html
    later = client.get("/codes/", {"q": "quittance", "as_of": "2018-01-01"}).content.decode()
    assert "/codes/code-des-essais/L101-3/" not in later
    bad = client.get("/codes/", {"q": "quittance", "as_of": "hier"})
    assert bad.status_code == 200 and "AAAA-MM-JJ" in bad.content.decode()  # French


def test_article_page_shows_timeline_and_clickable_renvois(room, codes):
    client = login(room.viewer)
    page = client.get("/codes/code-des-essais/L101-2/", {"as_of": "2017-01-01"})
    assert page.status_code == 200
    html = page.content.decode()
    assert "/codes/code-civil/1240/?as_of=2017-01-01" in html
    assert "/codes/code-des-essais/L101-3/?as_of=2017-01-01" in html
    timeline = client.get("/codes/code-des-essais/L101-1/", {"as_of": "2015-01-01"})
    assert "?as_of=2016-03-01" in timeline.content.decode()


def test_article_page_errors(room, codes):
    client = login(room.viewer)
    assert client.get("/codes/code-inconnu/L1/").status_code == 404
    missing = client.get("/codes/code-des-essais/L101-9/")
    assert missing.status_code == 404 and "L101-1" in missing.content.decode()
    repealed = client.get("/codes/code-des-essais/L101-3/", {"as_of": "2019-01-01"})
    assert repealed.status_code == 404 and "repealed=1" in repealed.content.decode()
    shown = client.get("/codes/code-des-essais/L101-3/", {"as_of": "2019-01-01", "repealed": "1"})
    assert shown.status_code == 200 and "quittance" in shown.content.decode()


def test_pages_need_a_session_and_ignore_bearer_tokens(room, codes):
    anonymous = Client()
    assert anonymous.get("/codes/").status_code == 302
    _token, raw = token_create(user=room.owner, name="t", read_only=True)
    with_token = anonymous.get("/codes/", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert with_token.status_code == 302


def test_search_with_no_code_imported_is_empty_not_an_error(room):
    body = _tool(room, "search_legal_codes", query="préavis")
    assert body["results"] == [] and body["codes_searched"] == []


def test_a_repealed_articles_last_version_is_read_on_its_last_day(room, codes):
    body = _tool(
        room,
        "get_article",
        code="code-des-essais",
        number="L101-3",
        as_of="2019-01-01",
        include_repealed=True,
    )
    assert body["article"]["url"].endswith("?as_of=2017-06-30")
    assert body["article"]["text_known"] is True
    page = login(room.viewer).get(body["article"]["url"])
    assert page.status_code == 200  # the link opens it, no "repealed" flag needed
