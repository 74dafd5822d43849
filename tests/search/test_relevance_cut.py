"""A clause query lists the contracts with an article that answers it: the others, matched
only weakly, are counted (weak_matches_left_out) and listed on request (include_weak)."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.urls import reverse

from agents.tools import tool_definitions
from search.ranking import ChunkHit, article_passes, content_words
from tests.helpers.contracts import ingest_entries
from tests.helpers.rooms import Room, login
from tests.helpers.search import contract_ids, search
from workspaces.tenancy import workspace_scope

pytestmark = pytest.mark.django_db

# Only c01 has the clause; c02 and c03 mention Bretagne, one word of three in the query.
DISTRIBUTION = (
    "CONTRAT DE DISTRIBUTION\n\nARTICLE 1 — OBJET\nLe fournisseur confie au distributeur la "
    "revente de ses produits.\n\nARTICLE 2 — EXCLUSIVITÉ\nLe distributeur bénéficie d'une "
    "exclusivité territoriale sur la Bretagne."
)
LEASE = (
    "BAIL COMMERCIAL\n\nARTICLE 1 — LOCAUX\nLes locaux sont situés en Bretagne, à Rennes.\n\n"
    "ARTICLE 2 — LOYER\nLe loyer annuel est de 24 000 euros."
)
SERVICES = (
    "CONTRAT DE MAINTENANCE\n\nARTICLE 1 — OBJET\nLe prestataire entretient les machines "
    "de l'usine de Bretagne.\n\nARTICLE 2 — PRIX\nLe prix mensuel est de 900 euros."
)
QUERY = "exclusivité territoriale en Bretagne"  # three content words: "en" is a stop word


@pytest.fixture
def loaded(room: Room, settings) -> Room:
    ingest_entries(
        room.workspace,
        {"filename": "distribution.txt", "title": "Distribution", "content": DISTRIBUTION},
        {"filename": "bail.txt", "title": "Bail", "content": LEASE},
        {"filename": "maintenance.txt", "title": "Maintenance", "content": SERVICES},
    )
    # Words decide here (a share of one word in three fails); meaning is tested apart.
    settings.LEXROOM_RELEVANCE_MIN_WORD_SHARE = 0.5
    settings.LEXROOM_RELEVANCE_MIN_SIMILARITY = 1.0
    return room


def test_a_clause_query_lists_only_contracts_with_an_answering_article(loaded: Room):
    body = search(loaded, query=QUERY)
    assert contract_ids(body) == ["c01"]
    assert body["total_results"] == 1
    assert body["weak_matches_left_out"] == 2
    assert body["results"][0]["relevant_articles"][0]["heading"].startswith("ARTICLE 2")


def test_include_weak_lists_the_weak_matches_too(loaded: Room):
    body = search(loaded, query=QUERY, include_weak=True)
    assert sorted(contract_ids(body)) == ["c01", "c02", "c03"]
    assert contract_ids(body)[0] == "c01"  # still ranked: the answering contract first
    assert body["weak_matches_left_out"] == 0


def test_a_query_every_contract_matches_weakly_lists_none_with_the_count(loaded: Room, settings):
    # Each contract holds two of the four words, in one article or another: none holds three.
    settings.LEXROOM_RELEVANCE_MIN_WORD_SHARE = 0.75
    body = search(loaded, query="exclusivité, loyer ou prix en Bretagne")
    assert body["results"] == [] and body["total_results"] == 0
    assert body["weak_matches_left_out"] == 3


def test_an_article_near_in_meaning_lists_its_contract(loaded: Room, settings):
    settings.LEXROOM_RELEVANCE_MIN_WORD_SHARE = 1.0
    settings.LEXROOM_RELEVANCE_MIN_SIMILARITY = -1.0  # any article the vector arm found
    body = search(loaded, query=QUERY)
    assert sorted(contract_ids(body)) == ["c01", "c02", "c03"]
    assert body["weak_matches_left_out"] == 0


def test_an_article_named_by_its_number_lists_its_contract(loaded: Room, settings):
    settings.LEXROOM_RELEVANCE_MIN_WORD_SHARE = 1.01  # words alone pass nothing
    body = search(loaded, query="article 2", filters={"document_ids": ["c02"]})
    assert contract_ids(body) == ["c02"]
    assert body["results"][0]["relevant_articles"][0]["heading"].startswith("ARTICLE 2")


def test_an_article_the_llm_judge_rates_relevant_lists_its_contract(settings):
    settings.LEXROOM_RELEVANCE_MIN_WORD_SHARE = 1.01  # words alone pass nothing
    hits = [ChunkHit(chunk_id=1, document_id=1, rerank_score=score) for score in (1.0, 2.0, None)]
    settings.LEXROOM_RERANKER = "llm"
    assert [article_passes(hit, 0.0) for hit in hits] == [False, True, False]
    settings.LEXROOM_RERANKER = "cross-encoder"  # scores on no fixed scale: not read
    assert not any(article_passes(hit, 0.0) for hit in hits)


def test_filters_alone_cut_nothing(loaded: Room):
    body = search(loaded, filters={"document_ids": ["c01", "c02", "c03"]})
    assert contract_ids(body) == ["c01", "c02", "c03"]
    assert body["weak_matches_left_out"] == 0


def test_filters_and_a_query_cut_among_the_filtered(loaded: Room):
    body = search(loaded, query=QUERY, filters={"document_ids": ["c02", "c03"]})
    assert body["results"] == []
    assert body["weak_matches_left_out"] == 2


def test_words_no_contract_holds_do_not_thin_the_share(loaded: Room):
    # Eight content words, five of them in no contract: c01 holds all of the other three.
    question = "exclusivité territoriale en Bretagne : merci de vérifier rapidement ce dossier"
    body = search(loaded, query=question)
    assert contract_ids(body) == ["c01"]
    assert body["weak_matches_left_out"] == 2


def test_a_hyphenated_word_is_found_by_its_own_stem_not_its_parts(loaded: Room):
    with workspace_scope(loaded.workspace):
        words = content_words("clause de non-concurrence")
    assert set(words) == {"clause", "non-concurrence"}
    assert all("-" in stem for stem in words["non-concurrence"])


def test_the_page_links_to_the_weak_matches(loaded: Room):
    url = reverse("search", args=[loaded.workspace.slug])
    client = login(loaded.viewer)
    page = client.get(url + "?" + urlencode({"q": QUERY}))
    text = page.content.decode()
    assert page.status_code == 200
    assert 'id="hit-c01"' in text and 'id="hit-c02"' not in text
    assert "2 contrats ne correspondent que faiblement — les afficher" in text  # French first
    link = text.split('id="weak-matches"><a href="', 1)[1].split('"', 1)[0]
    assert "weak=1" in link
    shown = client.get(url + link.replace("&amp;", "&")).content.decode()
    assert all(f'id="hit-{ref}"' in shown for ref in ("c01", "c02", "c03"))
    assert "que faiblement sont listés aussi" in shown


def test_the_page_refuses_a_bad_weak_value(loaded: Room):
    url = reverse("search", args=[loaded.workspace.slug])
    response = login(loaded.viewer).get(url + "?" + urlencode({"q": QUERY, "weak": "yes"}))
    assert response.status_code == 400


def test_the_tool_schema_publishes_include_weak_and_the_count():
    definition = {d["name"]: d for d in tool_definitions()}["search_data_room"]
    include_weak = definition["inputSchema"]["properties"]["include_weak"]
    assert include_weak["type"] == "boolean" and include_weak["default"] is False
    output = definition["outputSchema"]
    assert output["properties"]["weak_matches_left_out"]["type"] == "integer"
    assert "weak_matches_left_out" in output["required"]
