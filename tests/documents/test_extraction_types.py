"""Contract types (vocabulary, titles, preambles) and French company identifiers."""

from __future__ import annotations

import pytest

from documents.extraction import (
    CONTRACT_TYPES,
    ContractType,
    Finding,
    Unknown,
    contract_type_from_text,
    contract_type_key,
    contract_type_label,
    extract_identifiers,
    normalize_contract_type,
)
from documents.extraction._identifiers import siret_is_valid

# --- vocabulary ------------------------------------------------------------------------------


def test_vocabulary_keys_are_unique_ascii_snake_case_with_known_parents() -> None:
    keys = [label.key for label in CONTRACT_TYPES]
    assert len(keys) == len(set(keys))
    for label in CONTRACT_TYPES:
        assert label.key.isascii() and label.key == label.key.lower() and " " not in label.key
        assert label.fr and label.en
        assert label.parent is None or label.parent in keys


def test_vocabulary_covers_cuad_categories_and_french_practice() -> None:
    keys = {label.key for label in CONTRACT_TYPES}
    assert {
        "affiliate", "agency", "collaboration", "co_branding", "consulting", "development",
        "distribution", "endorsement", "franchise", "hosting", "intellectual_property",
        "joint_venture", "licence", "maintenance", "manufacturing", "marketing", "non_compete",
        "outsourcing", "promotion", "reseller", "services", "sponsorship", "supply",
        "strategic_alliance", "transportation", "commercial_lease", "loan", "share_transfer",
        "asset_liability_warranty", "commercial_agency", "amendment", "other",
    } <= keys  # fmt: skip


def test_commercial_lease_is_its_own_key_in_the_lease_family() -> None:
    label = contract_type_label("commercial_lease")
    assert label is not None and label.parent == "lease" and label.fr == "Bail commercial"


@pytest.mark.parametrize(
    ("label", "key"),
    [
        ("LICENSE, DEVELOPMENT AND COMMERCIALIZATION AGREEMENT", "licence"),
        ("Contrat de licence de marque", "licence"),
        ("bail commercial", "commercial_lease"),
        ("BAIL DE BUREAUX", "lease"),
        ("NONEXCLUSIVE VALUE ADDED DISTRIBUTOR AGREEMENT", "distribution"),
        ("Amendment No. 2 to the Supply Agreement", "amendment"),
        ("Avenant n°1 au contrat de fourniture d'électricité", "amendment"),
        ("Second Amended and Restated Exclusive Agency and Marketing Agreement", "agency"),
        ("cession de parts sociales", "share_transfer"),
        ("garantie d'actif et de passif", "asset_liability_warranty"),
        ("contrat d'agence commerciale", "commercial_agency"),
        ("Contrat de prêt", "loan"),
        ("CONTRAT DE CRÉDIT D'ACQUISITION", "loan"),
        ("Lettre de mission", "services"),
        ("Contrat de sous-traitance logistique", "subcontracting"),
        ("STRATEGIC' ALLIANCE AGREEMENT", "strategic_alliance"),
        ("Co-Branding and Advertising Agreement", "co_branding"),
        ("NON-COMPETITION AND NON-SOLICITATION AGREEMENT", "non_compete"),
        ("Contrat de travail à durée indéterminée", "employment"),
    ],
)
def test_contract_type_key_maps_french_and_english_labels(label: str, key: str) -> None:
    assert contract_type_key(label) == key


def test_mixed_title_takes_the_first_type_named() -> None:
    assert contract_type_key("License and Supply Agreement") == "licence"
    assert contract_type_key("Manufacturing and Supply Agreement") == "manufacturing"


def test_services_yields_to_a_more_specific_type() -> None:
    assert contract_type_key("Transportation Services Agreement") == "transportation"
    assert contract_type_key("Services and Hosting Agreement") == "hosting"


def test_financial_maintenance_agreements_are_not_upkeep() -> None:
    assert contract_type_key("Yield Maintenance Agreement") == "other"
    assert contract_type_key("Software Maintenance Agreement") == "maintenance"


def test_a_contract_title_naming_no_type_is_other_and_a_non_title_is_none() -> None:
    assert contract_type_key("Joint Filing Agreement") == "other"
    assert contract_type_key("Exhibit B") is None
    assert contract_type_key("") is None
    assert contract_type_key(None) is None


def test_normalize_contract_type_still_lowercases_for_callers() -> None:
    assert normalize_contract_type("  Bail   Commercial ") == "bail commercial"


# --- contract_type_from_text -----------------------------------------------------------------


def _found(text: str) -> Finding:
    found = contract_type_from_text(text)
    assert isinstance(found, Finding), found
    assert isinstance(found.value, ContractType)
    return found


def test_title_line_after_sec_exhibit_stamp_is_the_type() -> None:
    text = (
        "EXHIBIT 10.3\n\n      RESELLER AGREEMENT\n\nThis Agreement is made as of May 1, 2001 "
        "between Acme Corp. and Beta LLC.\n"
    )
    found = _found(text)
    assert found.value == ContractType("reseller", "RESELLER AGREEMENT")
    assert text[found.start : found.end] == "RESELLER AGREEMENT"
    assert found.rule == "title"


def test_title_after_an_uppercase_legal_legend_is_found() -> None:
    text = (
        "CERTAIN PORTIONS OF THIS EXHIBIT HAVE BEEN OMITTED UNDER RULE 24B-2, AS AMENDED. "
        "AMENDMENT NO. 2 TO MANUFACTURING AND SUPPLY AGREEMENT THIS AMENDMENT NO. 2 is made..."
    )
    assert _found(text).value.key == "amendment"


def test_amendment_named_after_the_title_makes_an_amendment() -> None:
    text = "Exhibit 10.4\n\nCOOPERATION AGREEMENT\n\n(2016 Amendment)\n\nThis Cooperation..."
    found = _found(text)
    assert found.value.key == "amendment"
    assert found.value.title == "COOPERATION AGREEMENT (2016 Amendment)"


def test_french_title_stops_at_the_dash() -> None:
    found = _found("CONTRAT DE LICENCE DE LOGICIEL — VERSION DE TRAVAIL\n\nARTICLE 1 — OBJET\n")
    assert found.value == ContractType("licence", "CONTRAT DE LICENCE DE LOGICIEL")


def test_preamble_gives_the_type_when_there_is_no_title() -> None:
    text = (
        'This Distribution Agreement (the "Agreement") is made on June 3, 2010 by and between '
        "Gamma Inc. and Delta Ltd."
    )
    found = _found(text)
    assert found.value.key == "distribution"
    assert found.rule == "preamble"
    assert found.confidence < 0.9


def test_french_preamble_gives_a_commercial_lease() -> None:
    text = "Entre les soussignés, il est convenu ce qui suit. Le présent contrat de bail commercial"
    assert _found(text + " est conclu pour neuf années.").value.key == "commercial_lease"


def test_a_lease_indexed_on_the_commercial_rent_index_is_a_commercial_lease() -> None:
    text = (
        "BAIL DE BUREAUX\n\nARTICLE 3 — LOYER\nLe loyer est indexé sur l'indice des loyers "
        "des activités tertiaires."
    )
    found = _found(text)
    assert found.value.key == "commercial_lease"
    assert found.value.title == "BAIL DE BUREAUX"


def test_title_and_preamble_that_disagree_keep_the_title_and_report_the_preamble() -> None:
    text = "LICENSE AGREEMENT\n\nThis Sponsored Research and License Agreement is made..."
    found = _found(text)
    assert found.value.key == "licence"
    assert [alt.value.key for alt in found.alternatives] == ["research"]


def test_a_generic_agreement_title_yields_to_a_typed_preamble() -> None:
    text = "AGREEMENT\n\nThis Supply Agreement is entered into by Acme Inc. and Beta SA."
    assert _found(text).value.key == "supply"


def test_text_without_a_contract_title_is_not_found() -> None:
    found = contract_type_from_text("Minutes of the board meeting held on 3 May 2020.")
    assert isinstance(found, Unknown) and found.reason == "not_found"


def test_contract_type_from_text_never_raises_on_odd_input() -> None:
    for text in ("", "\x00" * 10, "AGREEMENT " * 2000, "É" * 5000):
        assert isinstance(contract_type_from_text(text), Finding | Unknown)


# --- identifiers -----------------------------------------------------------------------------


def _identifiers(text: str) -> list[tuple[str, str, bool, str | None]]:
    return [
        (f.value.kind, f.value.number, f.value.valid, f.value.city)
        for f in extract_identifiers(text)
    ]


def test_siren_after_its_label_is_read_and_checked() -> None:
    assert _identifiers("Acme SAS, SIREN 552 100 554, représentée par") == [
        ("siren", "552100554", True, None)
    ]


def test_rcs_with_city_gives_the_siren_and_the_registry_city() -> None:
    assert _identifiers("RCS Paris 552 100 554") == [("rcs", "552100554", True, "Paris")]
    assert _identifiers("immatriculée au RCS de Lyon sous le numéro 552 100 554") == [
        ("rcs", "552100554", True, "Lyon")
    ]
    assert _identifiers("inscrite sous le n° 552 100 554 R.C.S. Nanterre") == [
        ("rcs", "552100554", True, "Nanterre")
    ]


def test_rcs_without_a_city_keeps_the_number() -> None:
    assert _identifiers("immatriculée au RCS sous le numéro 552 100 554") == [
        ("rcs", "552100554", True, None)
    ]


def test_siret_with_fourteen_digits_is_read() -> None:
    assert _identifiers("SIRET : 552 100 554 00013") == [("siret", "55210055400013", True, None)]


def test_siret_with_a_wrong_checksum_is_kept_and_marked_invalid() -> None:
    assert _identifiers("SIRET 552 100 554 00014") == [("siret", "55210055400014", False, None)]


def test_siren_with_a_wrong_checksum_is_kept_and_marked_invalid() -> None:
    [finding] = extract_identifiers("SIREN n° 552100555")
    assert finding.value.valid is False
    assert finding.confidence < 1


def test_la_poste_sirets_are_checked_by_the_sum_of_their_digits() -> None:
    assert siret_is_valid("35600000000001")  # digit sum 15
    assert not siret_is_valid("35600000000002")


def test_identifier_positions_locate_the_number_for_party_attachment() -> None:
    text = "Acme SAS (SIREN 552 100 554) et Beta SARL, RCS Lyon 552 100 554."
    findings = extract_identifiers(text)
    assert [f.rule for f in findings] == ["siren", "rcs"]
    assert text[findings[0].start : findings[0].end] == "SIREN 552 100 554"
    assert findings[1].start > text.index("Beta")


def test_numbers_without_a_label_or_of_the_wrong_length_are_ignored() -> None:
    assert extract_identifiers("Tél. 01 23 45 67 89, capital 552 100 554 euros") == []
    assert extract_identifiers("SIREN 552 100 55") == []
