"""The renvois extractor on hand-written sentences, the code catalogue, and the renvois eval
on a tiny invented LEGI JSON code (plus, marked slow, on the shared legi-data)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lab.sources.evals.renvois import predicted_pairs, run_renvois_eval
from sources.codes_catalog import code_slug
from sources.renvois import EXTRACTOR_VERSION, Mention, extract_references
from tests.helpers.data import shared_data

# Invented sentences: nothing here comes from a dataset.
HERE = "code-de-la-voirie-routiere"
CIVIL = "code-civil"


def refs(text: str, present: str | None = HERE) -> list[Mention]:
    return extract_references(text, present_code=present)


def pairs(text: str, present: str | None = HERE) -> list[tuple[str, str, str | None]]:
    return [(m.kind, m.number, m.code) for m in refs(text, present)]


def test_extractor_version_is_an_int() -> None:
    assert isinstance(EXTRACTOR_VERSION, int) and EXTRACTOR_VERSION >= 1


def test_same_article_belongs_to_the_text_or_code_named_before() -> None:
    found = refs(
        "Au sens de l'article 2 de la loi n° 2001-12 du 3 mai 2001 et du même article 4, "
        "puis de l'article L. 10 du code civil et de l'article L. 11 du même code."
    )
    assert [(m.kind, m.number, m.code) for m in found] == [
        ("text", "2", None),
        ("text", "4", None),
        ("article", "L10", CIVIL),
        ("article", "L11", CIVIL),
    ]
    assert found[1].unresolved_text == "loi n° 2001-12 du 3 mai 2001"


def test_articles_of_a_decision_or_of_this_same_decree_are_texts() -> None:
    assert pairs("Voir les articles 2 et suivants de la décision 2010/12/UE.")[0][0] == "text"
    found = pairs("Sauf les articles 17 à 19 de ce même décret.")
    assert found == [("text", "17", None)]


def test_a_number_glued_to_an_apostrophe_is_no_article() -> None:
    # "1'huissier" is a typo for "l'huissier", not an enumeration's second article.
    assert pairs("En application de l'article L. 45-1,1'huissier procède.") == [
        ("article", "L45-1", HERE)
    ]


def test_single_article_keeps_offsets_and_belongs_to_the_present_code() -> None:
    text = "Le maire statue, sauf l'article L. 121-3, sur la demande du riverain."
    (mention,) = refs(text)
    assert mention.raw == "article L. 121-3"
    assert text[mention.start : mention.end] == mention.raw
    assert (mention.kind, mention.number, mention.code) == ("article", "L121-3", HERE)
    assert mention.code_named == mention.precision == mention.unresolved_text == ""


def test_bare_number_of_the_civil_code() -> None:
    assert pairs("Le gardien du chien répond selon l'article 1240.", CIVIL) == [
        ("article", "1240", CIVIL)
    ]


@pytest.mark.parametrize(
    ("written", "number"),
    [
        ("L. 1233-3", "L1233-3"),
        ("L.1233-3", "L1233-3"),
        ("L 1233-3", "L1233-3"),
        ("R.* 123-4", "R123-4"),
        ("D. 12", "D12"),
        ("A. 3", "A3"),
        ("LO. 141", "LO141"),
        ("1649 A", "1649 A"),
        ("3 bis", "3 bis"),
    ],
)
def test_number_spellings_normalise_to_the_stored_form(written: str, number: str) -> None:
    (mention,) = refs(f"Les pénalités de l'article {written} sont doublées.")
    assert mention.number == number


def test_two_articles_joined_by_et_are_two_mentions() -> None:
    text = "Les articles L. 1233-3 et L. 1233-4 visent la fermeture du péage."
    first, second = refs(text)
    assert (first.raw, second.raw) == ("articles L. 1233-3", "L. 1233-4")
    assert [m.number for m in (first, second)] == ["L1233-3", "L1233-4"]


def test_enumeration_takes_the_code_named_after_it() -> None:
    text = "Les articles L. 1, L. 2 et L. 5 du code de la consommation régissent le troc."
    assert pairs(text) == [
        ("article", "L1", "code-de-la-consommation"),
        ("article", "L2", "code-de-la-consommation"),
        ("article", "L5", "code-de-la-consommation"),
    ]


def test_range_is_one_mention_with_its_last_article() -> None:
    (mention,) = refs("Les articles L. 1233-3 à L. 1233-7 règlent la pose des bornes.")
    assert mention.kind == "range"
    assert (mention.number, mention.number_end) == ("L1233-3", "L1233-7")
    assert mention.raw == "articles L. 1233-3 à L. 1233-7"


def test_a_quantity_after_a_is_not_a_range() -> None:
    assert pairs("Selon l'article L. 4, le délai va de 3 à 10 jours.") == [("article", "L4", HERE)]


def test_named_code_with_accents_and_typographic_apostrophes() -> None:
    text = (
        "Le juge applique l\u2019article L. 12-1 du Code de "
        "l\u2019expropriation pour cause d\u2019utilité publique."
    )
    (mention,) = refs(text)
    assert mention.code == "code-de-lexpropriation-pour-cause-dutilite-publique"


def test_present_code_section_and_above_mean_the_present_code() -> None:
    text = (
        "L'article L. 7 du présent code, l'article L. 8 de la présente section "
        "et l'article L. 9 ci-dessus s'appliquent aux talus."
    )
    assert [m.code for m in refs(text)] == [HERE, HERE, HERE]


def test_same_code_points_back_to_the_code_named_before() -> None:
    text = "Vu l'article 1240 du code civil et l'article 1241 du même code, le bac est fermé."
    assert [m.code for m in refs(text)] == [CIVIL, CIVIL]


def test_unknown_code_is_kept_as_written() -> None:
    (mention,) = refs("Selon l'article 5 du code des marchés forains, le stand est loué.")
    assert mention.code is None
    assert mention.code_named == "code des marchés forains"


def test_article_of_a_law_is_a_text_mention() -> None:
    text = "Le bail obéit à l'article 6 de la loi n° 89-462 du 6 juillet 1989 sur les ponts."
    (mention,) = refs(text)
    assert (mention.kind, mention.number, mention.code) == ("text", "6", None)
    assert mention.unresolved_text == "loi n° 89-462 du 6 juillet 1989"


def test_decree_and_ordinance_cited_alone_are_text_mentions() -> None:
    text = (
        "Le décret n° 2016-1088 du 8 août 2016 et l'ordonnance n° 2015-1341 du "
        "23 octobre 2015 règlent les abris."
    )
    found = refs(text)
    assert [(m.kind, m.number) for m in found] == [("text", ""), ("text", "")]
    assert found[0].unresolved_text == "décret n° 2016-1088 du 8 août 2016"
    assert found[1].unresolved_text.startswith("ordonnance n° 2015-1341")


def test_precision_before_the_article() -> None:
    text = "Les véhicules mentionnés au 1° de l'article L. 3121-1 sont garés."
    (mention,) = refs(text)
    assert (mention.precision, mention.number) == ("1°", "L3121-1")


def test_precision_of_an_alinea_before_and_after() -> None:
    before = refs("Le premier alinéa de l'article L. 6 ne vise pas les ponts.")
    after = refs("Selon l'article L. 6, alinéa 2, les ponts sont exclus.")
    assert before[0].precision == "premier alinéa"
    assert after[0].precision == "alinéa 2"


def test_mentions_are_ordered_by_start() -> None:
    text = (
        "La loi n° 2001-1 du 3 janvier 2001 complète l'article L. 2 ; "
        "les articles L. 4 et L. 5 aussi."
    )
    starts = [m.start for m in refs(text)]
    assert starts == sorted(starts)
    assert len(starts) == 4


def test_no_reference_in_plain_prose() -> None:
    assert refs("Le présent article s'applique aux chemins ruraux depuis 1989.") == []
    assert refs("") == []


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("code de la voirie routière", "code-de-la-voirie-routiere"),
        (
            "Code de l'expropriation pour cause d'utilité publique",
            "code-de-lexpropriation-pour-cause-dutilite-publique",
        ),
        ("code général des impôts", "code-general-des-impots"),
        ("code du travail", "code-du-travail"),
        ("CODE CIVIL", "code-civil"),
        ("code rural", "code-rural-et-de-la-peche-maritime"),
        (
            "code des relations entre le public et l\u2019administration",
            "code-des-relations-entre-le-public-et-ladministration",
        ),
    ],
)
def test_catalogue_lookups(name: str, slug: str) -> None:
    assert code_slug(name) == slug


def test_catalogue_says_none_for_an_unknown_code() -> None:
    assert code_slug("code des jeux de société") is None


# --- the eval, on a tiny invented LEGI JSON code --------------------------------------------

OWN_ID = "LEGITEXT000099999999"
CIVIL_ID = "LEGITEXT000006070721"


def _link(code_id: str, article_id: str, words: str, title: str = "") -> str:
    titled = f" title='Code des bacs - art. {title} (V)'" if title else ""
    return (
        f"<a href='/affichCodeArticle.do?cidTexte={code_id}&idArticle={article_id}"
        f"&dateTexte=&categorieLien=cid'{titled}>{words}</a>"
    )


def _article(number: str, html: str) -> dict[str, object]:
    article_id = f"LEGIARTI0000990000{number[1:].zfill(2)}"
    return {"type": "article", "data": {"id": article_id, "num": number, "texteHtml": html}}


def _tiny_code(folder: Path) -> None:
    law = "<a href='/affichTexte.do?cidTexte=JORFTEXT000000000001'>loi n° 1 du 2 mai 1990</a>"
    articles = [
        _article("L1", "<p>Le passeur tient un registre.</p>"),
        _article(
            "L2",
            f"<p>Selon l'{_link(OWN_ID, 'LEGIARTI000099000003', 'article L. 3', 'L3')} et l'"
            f"{_link(CIVIL_ID, 'LEGIARTI000000000001', 'article 1240 du code civil')}, "
            "le passeur répond du bac.</p>",
        ),
        _article(
            "L3",
            f"<p>Les articles {_link(OWN_ID, 'LEGIARTI000099000001', 'L. 1 à L. 2')} "
            f"et les tarifs {_link(OWN_ID, 'LEGIARTI000099000004', 'ci-dessous')} "
            f"s'appliquent, ainsi que la {law}.</p>",
        ),
        _article("L4", "<p>L'article L. 9 fixe le tarif de nuit.</p>"),
    ]
    tree = {
        "type": "code",
        "data": {"id": OWN_ID, "cid": OWN_ID, "title": "Code des bacs"},
        "children": [{"type": "section", "data": {"title": "Titre Ier"}, "children": articles}],
    }
    (folder / f"{OWN_ID}.json").write_text(json.dumps(tree), encoding="utf-8")


def test_eval_scores_a_tiny_code_by_hand(tmp_path: Path) -> None:
    _tiny_code(tmp_path)
    report = run_renvois_eval(tmp_path)
    # Gold: L2 -> L3 and civil 1240; L3 -> L1 (the range's link) and L4 ("ci-dessous").
    # Found: L2 -> L3, civil 1240; L3 -> L1; L4 -> L9 (unlinked article).
    assert report["gold_links"]["code-des-bacs"]["pairs"] == 4
    assert report["gold_links"]["code-des-bacs"]["anchors"] == 5
    headline = report["headline"]
    assert (headline["true_positives"], headline["predicted"], headline["gold"]) == (3, 4, 4)
    assert headline["precision"] == headline["recall"] == 0.75
    linked = report["linked_only"]
    assert (linked["precision"], linked["recall"], linked["articles"]) == (1.0, 0.75, 2)
    assert report["dev"]["articles"] + report["held_out"]["articles"] == 4
    assert report["errors"]["false_negatives"] == [
        {"article": "code-des-bacs L3", "gold": "code-des-bacs L4", "link_words": "ci-dessous"}
    ]
    assert report["extractor_version"] == EXTRACTOR_VERSION
    json.dumps(report)


def test_a_range_is_scored_as_its_first_article() -> None:
    found = predicted_pairs(refs("Les articles L. 1 à L. 4 et L. 8 s'appliquent."))
    assert set(found) == {(HERE, "L1"), (HERE, "L8")}


@pytest.mark.slow
def test_renvois_eval_on_the_shared_legi_data() -> None:
    report = run_renvois_eval(shared_data("legi-data"))
    anchors = {
        slug: row["anchors"] for slug, row in report["gold_links"].items() if slug != "total_pairs"
    }
    assert anchors == {
        "code-de-la-voirie-routiere": 252,
        "code-de-lexpropriation-pour-cause-dutilite-publique": 339,
        "code-des-procedures-civiles-dexecution": 461,
        "code-des-relations-entre-le-public-et-ladministration": 1015,
    }
    assert report["headline"]["f1"] >= 0.83
    assert report["linked_only"]["f1"] >= 0.92
    assert report["linked_only"]["recall"] >= 0.97
    # About 10,000-20,000 articles/s alone; a floor with room for a busy machine.
    assert report["speed"]["articles_per_s"] >= 2000


ROUTE = "code-de-la-route"
# Shaped like the code de la route's L110-2, which reproduces articles of the voirie routière
# between quotes (our own words).
REPRODUCING = (
    "Les voies sont définies aux articles L. 121-1 et L. 122-1 du code de la voirie routière "
    "ci-après reproduits :\n\n"
    '" Art. L. 121-1.-Les autoroutes sont des voies sans croisement. "\n\n'
    "\" Art. L. 122-1.-Les voies autres que celles de l'article L. 121-1 sont des routes ; "
    'le caractère express leur est donné aux articles L. 151-1 à L. 151-5. "\n\n'
    "Le présent article s'entend sous réserve de l'article L. 110-1."
)


def test_a_reference_inside_a_reproduced_article_belongs_to_the_reproduced_code() -> None:
    found = [(m.kind, m.number, m.number_end, m.code) for m in refs(REPRODUCING, ROUTE)]
    assert found == [
        ("article", "L121-1", "", HERE),
        ("article", "L122-1", "", HERE),
        # Inside the quotes: the voirie routière's articles, not the code de la route's.
        ("article", "L121-1", "", HERE),
        ("range", "L151-1", "L151-5", HERE),
        # After the quotes: the present code again.
        ("article", "L110-1", "", ROUTE),
    ]


def test_a_reproduced_article_of_an_unnamed_code_is_not_the_present_codes() -> None:
    text = "Il est ainsi rédigé :\n\n\" Art. L. 5.-Voir l'article L. 6. \"\n\nEt l'article L. 7."
    assert pairs(text, ROUTE) == [("article", "L6", None), ("article", "L7", ROUTE)]
