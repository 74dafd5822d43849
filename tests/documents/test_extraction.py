"""Metadata extraction from contract text: plain functions, no database."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from documents.duplicates import find_text_duplicates
from documents.extraction import (
    Finding,
    derive_end_date,
    detect_amendment,
    display_name,
    entity_key,
    extract_amounts,
    extract_parties_from_text,
    find_contradictions,
    governing_law_from_text,
    normalize_contract_type,
    normalize_governing_law,
    normalize_siren,
    parse_date,
    siren_is_valid,
)

# --- parse_date ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2025-01-20", date(2025, 1, 20)),
        ("28 mars 2022", date(2022, 3, 28)),
        ("03/06/2024", date(2024, 6, 3)),
        ("12/09/2025", date(2025, 9, 12)),
        ("2019/10/14", date(2019, 10, 14)),
        ("18-09-2023", date(2023, 9, 18)),
        ("2023-06-19T00:00:00Z", date(2023, 6, 19)),
        ("31/12/2027", date(2027, 12, 31)),
        ("1er janvier 2024", date(2024, 1, 1)),
        ("January 5, 2021", date(2021, 1, 5)),
        ("5th day of March, 2019", date(2019, 3, 5)),
        ("15 août 2023", date(2023, 8, 15)),
    ],
)
def test_parse_date_reads_data_room_formats_day_first(raw: str, expected: date) -> None:
    assert parse_date(raw) == expected


@pytest.mark.parametrize("raw", [None, "", "   ", "en cours", "31/02/2024", "n/a", "x" * 500])
def test_parse_date_returns_none_for_garbage_without_raising(raw: str | None) -> None:
    assert parse_date(raw) is None


# --- derive_end_date -------------------------------------------------------------------------


def test_explicit_end_date_beats_duration() -> None:
    text = "ARTICLE 4 — DURÉE\nConclu pour une durée de trois ans, il court jusqu'au 31 mars 2026."
    finding = derive_end_date(text, date(2024, 1, 1))
    assert finding is not None
    assert finding.value == date(2026, 3, 31)
    assert "31 mars 2026" in finding.evidence


def test_english_until_date_is_an_end_date() -> None:
    finding = derive_end_date("This Agreement remains in force until March 31, 2026.", None)
    assert finding is not None and finding.value == date(2026, 3, 31)


@pytest.mark.parametrize(
    "text",
    [
        "Le contrat est conclu pour une durée de trois ans.",
        "Le contrat est conclu pour trois (3) années à compter de sa signature.",
        "This Agreement is entered into for a term of three (3) years.",
        "ARTICLE 6 — DURÉE\nLe contrat produit ses effets pendant trois ans.",
        "La convention couvre les trois années qui suivent sa signature.",
    ],
)
def test_duration_counts_from_signature_and_ends_the_day_before(text: str) -> None:
    finding = derive_end_date(text, date(2024, 6, 3))
    assert finding is not None
    assert finding.value == date(2027, 6, 2)
    assert finding.rule == "duration_from_signature"


def test_duration_counts_from_a_stated_start_date() -> None:
    text = "ARTICLE 2 — DURÉE\nNeuf années à compter du 1er novembre 2019."
    finding = derive_end_date(text, date(2019, 10, 14))
    assert finding is not None and finding.value == date(2028, 10, 31)
    assert finding.rule == "duration_from_start"


def test_duration_in_months_and_french_compound_numbers() -> None:
    assert derive_end_date("Conclu pour une durée de dix-huit mois.", date(2024, 1, 15)) == Finding(
        date(2025, 7, 14), "Conclu pour une durée de dix-huit mois.", "duration_from_signature"
    )
    finding = derive_end_date("pour une durée de vingt-quatre mois", date(2024, 1, 1))
    assert finding is not None and finding.value == date(2025, 12, 31)


def test_notice_trial_and_rate_periods_are_not_the_term() -> None:
    text = (
        "La période d'essai est de quatre mois. Le taux est l'Euribor 3 mois plus 1 %. "
        "Le solde est versé sur un compte séquestre pendant dix-huit mois. "
        "Chaque partie peut résilier avec un préavis de six mois."
    )
    assert derive_end_date(text, date(2024, 1, 1)) is None


def test_extension_wins_over_the_initial_end_date() -> None:
    text = "La fin, initialement fixée au 30 juin 2026, est reportée au 30 juin 2028."
    finding = derive_end_date(text, None)
    assert finding is not None and finding.value == date(2028, 6, 30)
    assert finding.rule == "extension"


def test_no_term_gives_none() -> None:
    assert derive_end_date("Le salarié est engagé à durée indéterminée.", date(2024, 1, 1)) is None


# --- governing law ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "label"),
    [
        ("French law", "droit français"),
        ("droit français", "droit français"),
        ("laws of the State of New York", "droit new-yorkais"),
        ("droit new-yorkais", "droit new-yorkais"),
        ("Swiss law", "droit suisse"),
        ("droit de la Confédération suisse", "droit suisse"),
        ("the laws of England and Wales", "droit anglais"),
        ("Delaware", "droit delaware"),
        ("California", "droit californien"),
        ("the laws of the State of Texas", "droit de l'État de Texas"),
        ("Arkansas", "droit de l'État de Arkansas"),
        ("West Virginia", "droit de l'État de West Virginia"),
        ("laws of the United States and the State of Florida", "droit de l'État de Florida"),
        ("Ontario, Canada", "droit canadien (Ontario)"),
    ],
)
def test_governing_law_is_normalised_to_the_vocabulary(raw: str, label: str) -> None:
    assert normalize_governing_law(raw) == label


@pytest.mark.parametrize("raw", [None, "", "  ", "[Clause laissée en blanc]", "Republic of Utopia"])
def test_unknown_governing_law_is_never_guessed(raw: str | None) -> None:
    assert normalize_governing_law(raw) is None


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("ARTICLE 9 — LOI APPLICABLE\nLe présent contrat est soumis au droit français.",
         "droit français"),
        ("Le contrat est régi par le droit suisse, notamment le Code des obligations.",
         "droit suisse"),
        ("12. Governing Law. This Agreement shall be governed by and construed in accordance "
         "with the laws of the State of New York, without regard to conflicts of law.",
         "droit new-yorkais"),
        ("The laws of California shall govern the construction of this Agreement.",
         "droit californien"),
    ],
)  # fmt: skip
def test_governing_law_clause_is_found_in_french_and_english(text: str, label: str) -> None:
    finding = governing_law_from_text(text)
    assert finding is not None and finding.value == label


def test_blank_law_clause_and_incorporation_state_give_no_law() -> None:
    text = (
        "Acme Inc., a corporation organized under the laws of the State of Delaware, sells.\n\n"
        "ARTICLE 9 — LOI APPLICABLE\n[Clause laissée en blanc dans l'exemplaire transmis.]"
    )
    assert governing_law_from_text(text) is None


# --- parties ---------------------------------------------------------------------------------


def test_entity_key_ignores_legal_forms_titles_case_and_accents() -> None:
    assert entity_key("QUORVIA SAS") == entity_key("Quorvia")
    assert entity_key("Soravie Santé SAS") == entity_key("Soravie Santé") == "soravie sante"
    assert entity_key("Northbeam Analytics Inc.") == entity_key("Northbeam Analytics")
    assert entity_key("Adaptimmune L.L.C.") == entity_key("ADAPTIMMUNE, LLC")
    assert entity_key("M. Étienne Morand") == entity_key("Etienne Morand")


def test_entity_key_keeps_different_names_apart() -> None:
    assert entity_key("Groupe Brenalis") != entity_key("Brénalys Advisory")
    assert entity_key("SA") == "sa"


def test_display_name_collapses_whitespace_and_keeps_legal_form() -> None:
    assert display_name('  "Atelier   Corvel SARL", ') == "Atelier Corvel SARL"


def test_siren_normalisation_and_luhn_check() -> None:
    assert normalize_siren("187 656 260") == "187656260"
    assert normalize_siren("en cours") is None
    assert normalize_siren("12345") is None
    assert siren_is_valid("443061841")
    assert not siren_is_valid("443061842")
    assert not siren_is_valid("44306184")


def test_contract_type_is_trimmed_and_lower_cased() -> None:
    assert normalize_contract_type("  Bail   Commercial ") == "bail commercial"
    assert normalize_contract_type("  ") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('This Agreement is made between ACME Corp. ("ACME") and Foo Inc. ("Foo").',
         ["ACME Corp.", "Foo Inc."]),
        ('This Supply Agreement is entered into by and between Northwind Labs, Inc., a Delaware '
         'corporation ("Northwind"), and Bluepeak Trading Ltd., a company organized under the '
         'laws of England ("Bluepeak"). WHEREAS Northwind makes widgets.',
         ["Northwind Labs, Inc.", "Bluepeak Trading Ltd."]),
        ("Le présent bail est conclu entre la Foncière Arvel, propriétaire, ci-après « le "
         "Bailleur », et la société Atelier Morvan SARL, ci-après « le Preneur ».",
         ["Foncière Arvel", "Atelier Morvan SARL"]),
        ("ENTRE LES SOUSSIGNÉS :\nLa société Talvane SAS, au capital de 10 000 euros, "
         "immatriculée au RCS de Lyon, D'UNE PART,\nET :\nM. Paul Verlin, demeurant à Paris, "
         "D'AUTRE PART,\nIl a été convenu ce qui suit.",
         ["Talvane SAS", "M. Paul Verlin"]),
    ],
)  # fmt: skip
def test_preamble_parties_are_extracted_in_order(text: str, expected: list[str]) -> None:
    assert extract_parties_from_text(text) == expected


def test_no_preamble_gives_no_parties() -> None:
    assert extract_parties_from_text("ARTICLE 1 — OBJET\nla mission est décrite ci-dessous.") == []


# --- amounts ---------------------------------------------------------------------------------


def test_amounts_in_french_and_english_notations() -> None:
    text = (
        "Un crédit de 12 500 000 € et 1.250.000 euros, soit EUR 3,5 millions ; "
        "a fee of $1,000,000 or USD 2.5 million; 45 000 CHF; 96,40 euros HT; taux 2,15 %."
    )
    found = [(amount.value, amount.currency) for amount in extract_amounts(text)]
    assert found == [
        (Decimal("12500000"), "EUR"),
        (Decimal("1250000"), "EUR"),
        (Decimal("3500000"), "EUR"),
        (Decimal("1000000"), "USD"),
        (Decimal("2500000"), "USD"),
        (Decimal("45000"), "CHF"),
        (Decimal("96.40"), "EUR"),
    ]
    assert len(extract_amounts(text, limit=2)) == 2


# --- amendments ------------------------------------------------------------------------------


def test_avenant_is_detected_with_number_parent_and_new_term() -> None:
    info = detect_amendment(
        title="Avenant n°2 au contrat de prestation informatique — Alpha / Beta",
        contract_type=None,
        text="AVENANT N°2\nLes parties modifient le contrat qu'elles ont signé le 4 mai 2022. "
        "Le terme est prorogé jusqu'au 30 juin 2028.",
    )
    assert info is not None
    assert info.number == 2
    assert info.parent_title_hint == "contrat de prestation informatique"
    assert info.parent_date_hint == date(2022, 5, 4)
    assert info.new_end_date is not None and info.new_end_date.value == date(2028, 6, 30)


def test_english_amendment_title_is_detected() -> None:
    info = detect_amendment(
        title="First Amendment to the Distribution Agreement", contract_type=None, text="..."
    )
    assert info is not None and info.number == 1
    assert info.parent_title_hint == "Distribution Agreement"


def test_clause_announcing_future_avenants_is_not_an_amendment() -> None:
    text = (
        "CONTRAT DE PRESTATION\nARTICLE 12 — MODIFICATIONS\n"
        "Toute modification du présent contrat fera l'objet d'un avenant signé des parties."
    )
    assert detect_amendment(title="Contrat de prestation", contract_type="prestation de services",
                            text=text) is None  # fmt: skip


def test_amended_and_restated_agreement_is_a_contract() -> None:
    assert (
        detect_amendment(
            title="Amended and Restated License Agreement", contract_type=None, text="..."
        )
        is None
    )


# --- contradictions --------------------------------------------------------------------------


def test_end_date_and_law_contradictions_are_reported_with_evidence() -> None:
    warnings = find_contradictions(
        metadata_end=date(2027, 3, 31),
        text_end=Finding(date(2026, 9, 30), "court du 1er octobre 2023 au 30 septembre 2026",
                         "explicit_end_date"),
        metadata_law="French law",
        text_law=Finding("droit suisse", "soumis au droit suisse", "governing_law"),
    )  # fmt: skip
    assert len(warnings) == 2
    assert "2027-03-31" in warnings[0] and "2026-09-30" in warnings[0]
    assert "30 septembre 2026" in warnings[0]
    assert "droit français" in warnings[1] and "droit suisse" in warnings[1]


def test_consistent_or_unknown_sides_give_no_warning() -> None:
    end = Finding(date(2026, 9, 30), "jusqu'au 30 septembre 2026", "explicit_end_date")
    assert (
        find_contradictions(
            metadata_end=date(2026, 9, 30), text_end=end, metadata_law=None, text_law=None
        )
        == []
    )
    assert (
        find_contradictions(
            metadata_end=None, text_end=end, metadata_law="droit français", text_law=None
        )
        == []
    )


def test_end_before_signature_is_reported() -> None:
    warnings = find_contradictions(
        metadata_end=date(2020, 1, 1), text_end=None, metadata_law=None, text_law=None,
        metadata_signature=date(2021, 1, 1),
    )  # fmt: skip
    assert len(warnings) == 1 and "antérieure" in warnings[0]


# --- the Brenalis data room (shared data; skipped when absent) -------------------------------

DATA_ROOM = (
    Path(__file__).resolve().parents[2].parent
    / "shared"
    / "data"
    / "dataroom-brenalis"
    / "exemple_data_room.json"
)


@pytest.fixture(scope="module")
def contracts() -> dict[str, dict[str, object]]:
    if not DATA_ROOM.exists():
        pytest.skip("shared Brenalis data room not available")
    rows = json.loads(DATA_ROOM.read_text(encoding="utf-8"))
    return {f"c{index:02d}": row for index, row in enumerate(rows, start=1)}


def test_data_room_signature_dates_parse(contracts: dict[str, dict[str, object]]) -> None:
    assert parse_date(str(contracts["c03"]["signature_date"])) == date(2024, 6, 3)
    assert parse_date(str(contracts["c02"]["signature_date"])) == date(2022, 3, 28)
    assert parse_date(str(contracts["c15"]["signature_date"])) == date(2023, 9, 18)
    assert parse_date(str(contracts["c09"]["signature_date"])) == date(2023, 6, 19)
    for row in contracts.values():
        assert parse_date(str(row["signature_date"])) is not None


def test_data_room_text_end_dates_match_metadata_except_c15(
    contracts: dict[str, dict[str, object]],
) -> None:
    for ref, row in contracts.items():
        metadata_end = parse_date(row["end_date"])  # type: ignore[arg-type]
        text_end = derive_end_date(str(row["content"]), parse_date(str(row["signature_date"])))
        warnings = find_contradictions(
            metadata_end=metadata_end, text_end=text_end, metadata_law=None, text_law=None
        )
        if ref == "c15":
            assert text_end is not None and text_end.value == date(2026, 9, 30)
            assert len(warnings) == 1 and "2027-03-31" in warnings[0]
        else:
            assert warnings == [], ref
            if text_end is not None:
                assert text_end.value == metadata_end, ref


def test_data_room_governing_law(contracts: dict[str, dict[str, object]]) -> None:
    assert contracts["c10"]["governing_law"] is None
    assert governing_law_from_text(str(contracts["c10"]["content"])) is None
    for ref, row in contracts.items():
        finding = governing_law_from_text(str(row["content"]))
        if finding is not None:
            assert finding.value == row["governing_law"], ref


def test_data_room_amendment_and_parties(contracts: dict[str, dict[str, object]]) -> None:
    c18 = contracts["c18"]
    info = detect_amendment(
        title=str(c18["title"]), contract_type=str(c18["contract_type"]), text=str(c18["content"])
    )
    assert info is not None and info.number == 1
    assert info.parent_date_hint == parse_date(str(contracts["c09"]["signature_date"]))
    assert "fourniture" in info.parent_title_hint
    assert info.new_end_date is not None and info.new_end_date.value == date(2028, 6, 30)
    for ref, row in contracts.items():
        if ref != "c18":
            text = str(row["content"])
            assert (
                detect_amendment(
                    title=str(row["title"]), contract_type=str(row["contract_type"]), text=text
                )
                is None
            ), ref
    assert entity_key("QUORVIA SAS") == entity_key("Quorvia")
    assert entity_key("Groupe Brenalis") != entity_key("Brénalys Advisory")
    parties = [
        entity_key(name) for name in extract_parties_from_text(str(contracts["c02"]["content"]))
    ]
    assert parties == [entity_key(name) for name in contracts["c02"]["parties"]]  # type: ignore[attr-defined]


def test_data_room_reupload_is_a_text_duplicate(contracts: dict[str, dict[str, object]]) -> None:
    groups = find_text_duplicates({ref: str(row["content"]) for ref, row in contracts.items()})
    assert [group.ids for group in groups] == [frozenset({"c11", "c19"})]
