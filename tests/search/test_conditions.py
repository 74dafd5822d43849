"""Conditions read from a query's words (search.conditions): what is read, in French and
English, and the traps that must not be read — a negation, an end date as a signature date,
a clause's topic as a contract type, a name two parties share."""

from __future__ import annotations

from datetime import date
from time import perf_counter

import pytest

from search.conditions import PartyName, QueryVocabulary, read_conditions
from search.conditions._parties import MAX_NAME_WORDS, MAX_NAMES, party_index
from search.conditions._tokens import Words, folded_words
from search.paging import MAX_QUERY_CHARS

ROOM = QueryVocabulary(
    laws=frozenset({"droit français", "droit new-yorkais", "droit anglais", "droit suisse"}),
    contract_types=frozenset(
        {"lease", "commercial_lease", "distribution", "franchise", "licence", "nda", "supply"}
    ),
    parties=(
        PartyName(1, "Groupe Brenalis"),
        PartyName(2, "Brénalys Advisory"),
        PartyName(3, "Foncière Verdane"),
        PartyName(4, "Comptoir Verdane SARL"),
        PartyName(5, "Acme Corp", ("ACME Corporation",)),
        PartyName(6, "Hydrelle Énergie SA"),
    ),
)


def _read(query: str, vocabulary: QueryVocabulary = ROOM) -> tuple[list[tuple], str]:
    reading = read_conditions(query, vocabulary)
    return [(c.field, c.value, c.words) for c in reading.conditions], reading.leftover


@pytest.mark.parametrize(
    ("query", "law", "words"),
    [
        ("contrats régis par le droit français", "droit français", "régis par le droit français"),
        ("French law", "droit français", "French law"),
        ("governed by New York law", "droit new-yorkais", "governed by New York law"),
        ("laws of the State of New York", "droit new-yorkais", "laws of the State of New York"),
        ("contrats de droit suisse", "droit suisse", "de droit suisse"),
    ],
)
def test_a_law_is_read_in_either_language(query: str, law: str, words: str):
    conditions, leftover = _read(query)
    assert conditions == [("governing_law", law, words)]
    assert leftover == ""


def test_two_laws_joined_by_or_are_both_read():
    conditions, _ = _read("English or Swiss law")
    assert sorted(value for _, value, _ in conditions) == ["droit anglais", "droit suisse"]


@pytest.mark.parametrize(
    "query",
    [
        "not governed by New York law",
        "sauf droit anglais",
        "hors droit français",
        "contracts under laws other than French law",
        "contrats qui ne sont pas soumis au droit suisse",
    ],
)
def test_a_negated_law_is_left_in_the_text(query: str):
    conditions, leftover = _read(query)
    assert conditions == []
    assert leftover == query


def test_a_law_the_workspace_lacks_is_not_read():
    conditions, leftover = _read("governed by German law")
    assert conditions == []
    assert leftover == "governed by German law"


@pytest.mark.parametrize(
    ("query", "bounds", "words"),
    [
        ("contrats signés avant 2015", {"before": date(2014, 12, 31)}, "signés avant 2015"),
        ("signed before 2020-01-01", {"before": date(2019, 12, 31)}, "signed before 2020-01-01"),
        ("signés après 2015", {"after": date(2016, 1, 1)}, "signés après 2015"),
        ("conclus depuis le 1er mars 2021", {"after": date(2021, 3, 1)}, "conclus depuis le 1er mars 2021"),  # noqa: E501
        (
            "signed between 2018 and 2020",
            {"after": date(2018, 1, 1), "before": date(2020, 12, 31)},
            "signed between 2018 and 2020",
        ),
        (
            "signés en 2025",
            {"after": date(2025, 1, 1), "before": date(2025, 12, 31)},
            "signés en 2025",
        ),
    ],
)  # fmt: skip
def test_a_signature_date_is_read(query: str, bounds: dict, words: str):
    conditions, _ = _read(query)
    assert conditions == [("signature_date", bounds, words)]


@pytest.mark.parametrize(
    ("query", "bounds"),
    [
        ("contracts ending before 2027", {"before": date(2026, 12, 31)}),
        ("expiring before 2027", {"before": date(2026, 12, 31)}),
        ("qui expirent avant fin 2026", {"before": date(2026, 12, 31)}),
        (
            "baux arrivant à échéance en mars 2026",
            {"after": date(2026, 3, 1), "before": date(2026, 3, 31)},
        ),
        ("date de fin après le 30/06/2028", {"after": date(2028, 7, 1)}),
    ],
)  # fmt: skip
def test_an_end_date_is_never_read_as_a_signature_date(query: str, bounds: dict):
    conditions, _ = _read(query)
    dated = [(field, value) for field, value, _ in conditions if field.endswith("_date")]
    assert dated == [("end_date", bounds)]


def test_both_dates_of_one_query_go_to_their_own_fields():
    conditions, leftover = _read("contracts signed in 2020 and ending before 2027")
    assert [(field, value) for field, value, _ in conditions] == [
        ("signature_date", {"after": date(2020, 1, 1), "before": date(2020, 12, 31)}),
        ("end_date", {"before": date(2026, 12, 31)}),
    ]
    assert leftover == ""


@pytest.mark.parametrize(
    "query",
    [
        "avant 2015",  # which date? left in the text
        "not signed before 2015",
        "contrats qui n'expirent pas avant 2027",
        "signed before 2020-02-30",  # no such day
    ],
)
def test_a_date_without_its_verb_or_negated_or_impossible_is_not_read(query: str):
    conditions, leftover = _read(query)
    assert conditions == []
    assert leftover == query


def test_contradicting_dates_on_one_field_keep_the_first():
    conditions, leftover = _read("signés après 2020 et signés avant 2010")
    assert [value for _, value, _ in conditions] == [{"after": date(2021, 1, 1)}]
    assert "avant 2010" in leftover


@pytest.mark.parametrize(
    ("query", "types"),
    [
        ("baux commerciaux", ["commercial_lease"]),
        ("bail commercial", ["commercial_lease"]),
        ("commercial leases", ["commercial_lease"]),
        ("distribution et franchise", ["distribution", "franchise"]),
        ("contrats de distribution et de franchise", ["distribution", "franchise"]),
        ("license agreements", ["licence"]),
        ("accords de confidentialité", ["nda"]),
        ("supply contracts", ["supply"]),
    ],
)
def test_a_contract_type_is_read_with_its_plural(query: str, types: list[str]):
    conditions, leftover = _read(query)
    assert [value for field, value, _ in conditions if field == "contract_types"] == types
    assert leftover == ""


@pytest.mark.parametrize(
    "query",
    [
        "clause de confidentialité",
        "franchise de loyer",
        "distribution rights",
        "license fees",
        "exclusive licence",
        "sauf baux commerciaux",
        "other than leases",
        "contrats de maintenance",  # a type the workspace has none of
    ],
)
def test_a_clause_topic_a_negated_or_absent_type_is_not_read(query: str):
    conditions, leftover = _read(query)
    assert conditions == []
    assert leftover == query


@pytest.mark.parametrize(
    ("query", "entity_ids", "leftover"),
    [
        ("contracts with Acme", [5], ""),
        ("contrats avec Brenalis", [1], ""),
        ("ACME Corporation", [5], ""),
        ("entre Hydrelle Énergie et Groupe Brenalis", [6, 1], ""),
        ("changement de contrôle Brenalis", [1], "changement de contrôle"),
        ("Foncière Verdane", [3], ""),
    ],
)
def test_a_party_of_the_workspace_is_read_by_its_name_or_a_part(
    query: str, entity_ids: list[int], leftover: str
):
    conditions, rest = _read(query)
    assert [value for _, value, _ in conditions] == entity_ids
    assert rest == leftover


@pytest.mark.parametrize(
    "query",
    [
        "Verdane",  # Foncière Verdane or Comptoir Verdane: not one party
        "Groupe",  # a generic word of a name
        "contracts with Globex",  # not a party of the workspace
        "sauf Brenalis",
        "not with Acme",
    ],
)
def test_a_shared_generic_unknown_or_negated_name_is_not_read(query: str):
    conditions, leftover = _read(query)
    assert conditions == []
    assert leftover == query


TRAPS = QueryVocabulary(
    laws=frozenset(),
    contract_types=frozenset({"lease"}),
    parties=(
        PartyName(1, "Sécurité Plus SAS"),
        PartyName(2, "Exclusive Networks SA"),
        PartyName(3, "Confidential Solutions"),
        PartyName(4, "Orange SA"),
    ),
)


@pytest.mark.parametrize(
    "query",
    [
        "clause de sécurité",
        "obligations de sécurité",
        "Exclusive licence",
        "non-exclusive licence",
        "a Non-Exclusive licence",
        "confidential information",
        "orange",
    ],
)
def test_a_word_that_is_part_of_a_name_is_no_party_unless_written_as_one(query: str):
    conditions, leftover = _read(query, TRAPS)
    assert conditions == []
    assert leftover == query


@pytest.mark.parametrize(
    ("query", "entity_id"),
    [("contrats avec Orange", 4), ("contracts with exclusive", 2), ("audit de Sécurité", 1)],
)
def test_a_part_of_a_name_is_read_after_with_or_with_its_capital(query: str, entity_id: int):
    conditions, _ = _read(query, TRAPS)
    assert [value for _, value, _ in conditions] == [entity_id]


def test_long_names_and_many_aliases_are_indexed_within_bounds():
    """What reading a query costs grows with the names indexed: a hostile upload's long names
    and piled-up aliases are cut to MAX_NAME_WORDS words and MAX_NAMES names."""
    words = [f"mot{i}" for i in range(60)]
    name = " ".join(words[:40])
    party = PartyName(1, name, tuple(" ".join(words[a : a + 40]) for a in range(1, 20)))
    index = party_index([party], present=set(words))
    assert len(index.names[1]) == MAX_NAMES
    assert all(len(core) <= MAX_NAME_WORDS for core in index.names[1])
    # The name as typed, cut where the index cuts it, is still read whole.
    conditions, _ = _read(" ".join(words[:MAX_NAME_WORDS]), QueryVocabulary(
        laws=frozenset(), contract_types=frozenset(), parties=(party,)
    ))  # fmt: skip
    assert [value for _, value, _ in conditions] == [1]


def test_near_names_stay_apart():
    conditions, _ = _read("Brénalys")
    assert [value for _, value, _ in conditions] == [2]


def test_the_examples_of_a_lawyer_read_whole():
    conditions, leftover = _read("contracts with Acme governed by New York law ending before 2027")
    assert [(field, value) for field, value, _ in conditions] == [
        ("entity_ids", 5),
        ("governing_law", "droit new-yorkais"),
        ("end_date", {"before": date(2026, 12, 31)}),
    ]
    assert leftover == ""


def test_what_is_left_is_ranked_and_a_query_without_conditions_is_unchanged():
    _, leftover = _read("clause de non-concurrence des baux commerciaux signés avant 2015")
    assert leftover == "clause de non-concurrence"
    assert _read("droit applicable au bail")[1] == "droit applicable"
    assert _read("exclusivité territoriale") == ([], "exclusivité territoriale")


MANY_PARTIES = QueryVocabulary(
    laws=ROOM.laws,
    contract_types=ROOM.contract_types,
    parties=tuple(
        PartyName(i, f"Société Nom{i} Partenaires", key=f"nom{i} partenaires")
        for i in range(10_000)
    ),
)


@pytest.mark.parametrize(
    "unit",
    [
        "signés avant 2015 droit français baux Brenalis ",
        "droit ",  # a law word at every step
        "partenaires ",  # a word ten thousand parties share
        "nom1 nom2 partenaires ",
    ],
)
def test_reading_the_longest_query_stays_fast_whatever_the_parties(unit: str):
    query = (unit * 500)[:MAX_QUERY_CHARS]
    started = perf_counter()
    read_conditions(query, MANY_PARTIES)
    # Measured about 0.1 s on a loaded 2-core machine; a quadratic reading took 13 s.
    assert perf_counter() - started < 3.0


@pytest.mark.parametrize(
    "name", ["Groupe Brénalis SAS", "Cœur de Ville S.A.R.L.", "ﬁnance l'Œil — Société", "İstanbul"]
)
def test_names_are_folded_as_queries_are(name: str):
    assert folded_words(name) == [word.folded for word in Words.of(name).words]


@pytest.mark.parametrize("query", ["signed in 2015 and in 2016", "signés en 2015 et en 2016"])
def test_two_dates_on_one_side_widen_the_range_and_hide_neither(query: str):
    conditions, leftover = _read(query)
    assert conditions == [
        ("signature_date", {"after": date(2015, 1, 1), "before": date(2016, 12, 31)}, query)
    ]
    assert leftover == ""
