"""Parties and their roles read from contract text (preamble, defined terms, labelled lines,
signature blocks, the first operative sentence). Snippets are written for these tests."""

from __future__ import annotations

import pytest

from documents.extraction import (
    Party,
    extract_parties,
    extract_parties_from_text,
    role_for_term,
)
from lab.documents.evals import gold_parties, gold_parties_counted, same_party


def _parties(text: str) -> list[Party]:
    return [finding.value for finding in extract_parties(text)]


def test_defined_term_gives_the_licensee_role() -> None:
    text = (
        "This License Agreement is made by and between Acme Software, Inc., a Delaware "
        'corporation ("Licensor"), and Northwind Traders Ltd., an English company '
        '("Licensee"). WHEREAS Licensor owns software.'
    )
    assert _parties(text) == [
        Party("Acme Software, Inc.", "licensor", "Licensor"),
        Party("Northwind Traders Ltd.", "licensee", "Licensee"),
    ]


def test_french_ci_apres_terms_give_lessor_and_lessee() -> None:
    text = (
        "Le présent bail est conclu entre la Foncière Arvel, propriétaire, ci-après « le "
        "Bailleur », et la société Atelier Morvan SARL, ci-après dénommée le Preneur."
    )
    parties = _parties(text)
    assert [(p.name, p.role, p.defined_term) for p in parties] == [
        ("Foncière Arvel", "lessor", "le Bailleur"),
        ("Atelier Morvan SARL", "lessee", "le Preneur"),
    ]


@pytest.mark.parametrize(
    ("written", "term"),
    [
        ("ci-après dénommée le « Prestataire »", "Prestataire"),
        ('ci-après le "Prestataire"', "Prestataire"),
        ("ci-après désignée la « Prestataire »", "Prestataire"),
        ("ci-après désignée l'« Prestataire »", "Prestataire"),
        ("ci-après dénommée le Prestataire", "le Prestataire"),
    ],
)
def test_a_french_article_before_the_term_is_not_the_term(written: str, term: str) -> None:
    text = (
        "CONTRAT DE PRESTATION DE SERVICES\n\nENTRE :\n\nLa société ALPHA CONSEIL SAS, "
        f"immatriculée au RCS de Paris sous le numéro 552 100 554, {written},\n\nET\n\n"
        "La société BETA SARL, ci-après « le Client »,\n\nARTICLE 1 — OBJET\nLe texte.\n"
    )
    first = _parties(text)[0]
    assert (first.name, first.defined_term) == ("ALPHA CONSEIL SAS", term)


def test_finding_locates_the_name_and_names_its_rule() -> None:
    text = (
        'CONSULTING AGREEMENT\nmade between Quorvia SAS ("Company") and Paul Verlin ("Consultant").'
    )
    first, second = extract_parties(text)
    assert text[first.start : first.end] == "Quorvia SAS"
    assert text[second.start : second.end] == "Paul Verlin"
    assert first.rule == "preamble" and first.confidence == 0.9
    assert second.value.role == "consultant"


def test_entered_into_by_without_between_is_read_from_the_defined_terms() -> None:
    text = (
        "This Consulting Agreement, made this 1st day of March, is entered into by Talvane "
        'Bio, Inc., a Delaware corporation (the "Company"), and Alan Roe, an individual '
        '(the "Consultant").'
    )
    assert extract_parties_from_text(text) == ["Talvane Bio, Inc.", "Alan Roe"]


def test_party_introduced_only_by_its_defined_term_skips_its_representative() -> None:
    text = (
        "CONSULTING AGREEMENT\nOrvane Labs, Inc., with a place of business at 1 Main Street "
        '("Orvane") and KELDA B.V having an address at Leiden, represented by Jan Smit, '
        '("Consultant") agree to the terms of this Consulting Agreement.'
    )
    findings = extract_parties(text)
    assert [f.value.name for f in findings] == ["Orvane Labs, Inc.", "KELDA B.V"]
    assert {f.rule for f in findings} == {"defined_term"}
    assert findings[1].value.role == "consultant"


def test_labelled_lines_name_party_a_and_party_b() -> None:
    text = (
        "Transport Agreement Party A (Shipper): Zephyr Express Co., Ltd. Address: Shanghai "
        "Party B (Carrier): Tonglin Logistics Ltd. Address: Zhejiang\nParty A pays."
    )
    assert extract_parties_from_text(text) == ["Zephyr Express Co., Ltd.", "Tonglin Logistics Ltd."]


def test_numbered_parties_heading_is_a_preamble() -> None:
    text = (
        "THIS AGREEMENT is dated\nParties\n(1) Sirius Ortho Pty Ltd (ACN 1) , 7 Road, Lane Cove\n"
        "(2) Dalmed Consultants, LLC of 15 Central Expressway, Dallas.\nBackground\nThe Supplier."
    )
    assert extract_parties_from_text(text) == ["Sirius Ortho Pty Ltd", "Dalmed Consultants, LLC"]


def test_signature_block_names_the_parties_when_the_preamble_does_not() -> None:
    text = (
        "JOINT FILING AGREEMENT\nThe undersigned agree to file jointly.\nDated: July 6\n"
        "KESTREL PARTNERS, LLC /s/ John Roe Name: John Roe Title: Signatory "
        "KESTREL FUND II, L.P. By: Kestrel Partners, LLC /s/ John Roe Name: John Roe"
    )
    findings = extract_parties(text)
    assert [f.value.name for f in findings] == ["KESTREL PARTNERS, LLC", "KESTREL FUND II, L.P."]
    assert all(f.rule == "signature_block" and f.confidence == 0.7 for f in findings)


def test_first_operative_sentence_names_french_parties() -> None:
    text = (
        "ACTE DE CESSION\n\nARTICLE 1 — PARTS CÉDÉES\nM. Paul Verlin cède au Groupe Talvane "
        "les parts qu'il détient."
    )
    assert extract_parties_from_text(text) == ["M. Paul Verlin", "Groupe Talvane"]


@pytest.mark.parametrize(
    ("term", "role"),
    [("Licensee", "licensee"), ("le Preneur", "lessee"), ("the Landlord", "lessor"),
     ("le Prestataire", "service_provider"), ("Cessionnaire", "buyer"), ("Concédant", "licensor"),
     ("Franchisee", "franchisee"), ("Borrower", "borrower"), ("Effective Date", None)],
)  # fmt: skip
def test_role_vocabulary_is_bilingual(term: str, role: str | None) -> None:
    assert role_for_term(term) == role


def test_a_role_word_alone_is_not_a_party_name() -> None:
    text = "This Agreement is made by and between Franchisor and Developer as follows."
    assert extract_parties_from_text(text) == []


def test_table_of_contents_between_is_not_the_preamble() -> None:
    text = (
        "1.1 Conflict Among Agreements 16 9.2 Assignment 17\n"
        'This Agreement is entered into by and between Orlo Corp. ("Orlo") and Pell Inc. '
        '("Pell").'
    )
    assert extract_parties_from_text(text) == ["Orlo Corp.", "Pell Inc."]


def test_names_are_deduplicated_and_capped_at_six() -> None:
    names = ", ".join(f"Firm{n} Ltd." for n in range(9))
    text = f"This Agreement is made by and between {names}; and Firm0 Ltd. as agent."
    parties = extract_parties_from_text(text)
    assert len(parties) <= 6
    assert len(set(parties)) == len(parties)


@pytest.mark.parametrize(
    "text",
    ["", " ", "(" * 5000, '"' * 3000, "between " * 20000, "x" * 1_000_000,
     'This Agreement is made between ("Licensor") and (', "By: " * 5000, "Party A: " * 500],
)  # fmt: skip
def test_odd_input_never_raises(text: str) -> None:
    assert isinstance(extract_parties(text), list)


def test_gold_and_ours_match_across_a_missing_space() -> None:
    assert same_party("Inde Living Holdings, Inc.", "IndeLiving Holdings, Inc")
    assert not same_party("Clarus IV-A, L.P.", "Clarus IV-B, L.P.")
    assert gold_parties('Radial Spark, LLC ("Vendor")') == ["Radial Spark, LLC"]


def test_gold_role_words_and_pronouns_are_placeholders_not_names() -> None:
    answer = (
        'Halvane Foods, Inc. ("Company"); Franchisee; You; the seller; sales agent; deep systems'
    )
    assert gold_parties(answer) == ["Halvane Foods, Inc", "deep systems"]
    assert gold_parties_counted(answer) == (["Halvane Foods, Inc", "deep systems"], 4)


def test_a_party_set_apart_by_dashes_is_read() -> None:
    text = (
        'THIS AGREEMENT is made BETWEEN: ORVELT, INC., an Ontario company ("Orvelt"); - and - '
        'MARLOW HEALTH CORP, an Ontario company ("Marlow") RECITALS: A. Orvelt sells.'
    )
    assert extract_parties_from_text(text) == ["ORVELT, INC", "MARLOW HEALTH CORP"]


def test_the_following_parties_heading_keeps_the_first_party() -> None:
    text = (
        "This Agreement is made by and among the following parties: (a) Tessa Brook, Inc. "
        '("TB"), c/o Halden Co.; (b) Halden Co. ("Halden"); and (c) Vireo Group ("Vireo").'
    )
    assert extract_parties_from_text(text) == ["Tessa Brook, Inc.", "Halden Co.", "Vireo Group"]


def test_a_lower_case_brand_closed_by_its_legal_form_is_a_name() -> None:
    text = (
        'This agreement is entered into by and between Corvin Corporation ("Corvin"), and '
        'e-plural, Inc., ("e-plural"), a Delaware corporation. RECITALS A. Corvin sells.'
    )
    assert extract_parties_from_text(text) == ["Corvin Corporation", "e-plural, Inc."]


def test_a_defined_term_then_a_comma_separates_three_parties() -> None:
    text = (
        'THIS AGREEMENT is entered into by and among DARROW, INC. (the "Company"), JAMES T. '
        'OLSEN ("Olsen") and OLSEN MEDIA, INC. ("Olsen Media"), effective as of June 1.'
    )
    assert extract_parties_from_text(text) == [
        "DARROW, INC",
        "JAMES T. OLSEN",
        "OLSEN MEDIA, INC",
    ]


def test_lower_case_legal_forms_close_a_name() -> None:
    text = (
        "This Agreement is made by and between Corlan Systems, Inc., a Florida corporation "
        '("Corlan") and Brightwell Software Group plc, a company registered under the laws '
        'of England and Wales ("Brightwell"). Background WHEREAS Corlan resells.'
    )
    assert extract_parties_from_text(text) == [
        "Corlan Systems, Inc.",
        "Brightwell Software Group plc",
    ]


def test_and_followed_by_a_comma_still_separates_parties() -> None:
    text = (
        'This Agreement is entered into by and between The Halver University (hereinafter "HU"), '
        "having a place of business at 3 Main Street, Baltimore, Maryland 21218 and, Ostrel "
        'Robotics, Inc. (hereinafter "Company"), a Tennessee corporation. 1. BACKGROUND'
    )
    assert extract_parties_from_text(text) == ["Halver University", "Ostrel Robotics, Inc."]


def test_spaced_between_and_a_bracketed_role_before_a_name() -> None:
    spaced = 'THIS AGREEMENT made this 20 day of May. B E T W E E N: KESTREL COURIER LTD. ("K")'
    spaced += ' - and - PARRO SYSTEMS LTD. ("Parro") WHEREAS Kestrel carries parcels.'
    assert extract_parties_from_text(spaced) == ["KESTREL COURIER LTD", "PARRO SYSTEMS LTD"]
    labelled = (
        "THIS AGREEMENT is made May 3 by and between Norvik LLC, a Delaware limited liability "
        "company (Developer), and (Client) Tamsin Foods Inc. for software services."
    )
    assert extract_parties_from_text(labelled) == ["Norvik LLC", "Tamsin Foods Inc."]


def test_a_letter_agreement_lists_its_parties_after_the_salutation() -> None:
    text = (
        "AGENCY AGREEMENT May 1 Dunmore Securities, Inc. 10 Wacker Drive Chicago Ladies and "
        'Gentlemen: Corven Bancorp, Inc., a Maryland corporation (the "Company"), together '
        'with Corven Holdings, L.P., a Delaware limited partnership (the "Partnership"), and '
        'Corven Bank, a savings bank (the "Bank"), confirm their agreement with you.'
    )
    assert extract_parties_from_text(text) == [
        "Corven Bancorp, Inc.",
        "Corven Holdings, L.P.",
        "Corven Bank",
    ]


def test_an_abbreviated_party_is_spelled_out_from_its_definition() -> None:
    text = (
        "FLEET AGREEMENT made between KVL and DMC WHEREAS DMC runs vans. DATED 13 October. "
        "DMC DORSET MILK COMPANY LIMITED whose office is at Bath."
    )
    assert sorted(extract_parties_from_text(text)) == ["DORSET MILK COMPANY LIMITED", "KVL"]


def test_a_party_named_by_its_role_ends_the_search_for_a_preamble() -> None:
    text = (
        "This Reseller Agreement is entered into by and between Quillon Systems Corporation "
        "and Reseller.\n\n1. SCOPE\n\nReseller resells the Quillon Products and Field Support "
        "Services (as defined below). Disputes between the Premium Catalogue and Partner "
        "Services (as defined below) go to the Quillon board."
    )
    preamble = [f.value.name for f in extract_parties(text) if f.rule == "preamble"]
    assert preamble == ["Quillon Systems Corporation"]


def test_recitals_after_the_preamble_sentence_are_not_parties() -> None:
    text = (
        "This Endorsement Agreement is made between Brightfield Nutrition LLC, a Nevada "
        'limited liability company (the "Company"), and Dana Moreau, an individual.\n\n'
        "A. The Company sells supplements on its websites (www.brightfield.example) (the "
        '"Websites").\nB. Dana Moreau is a known athlete, and\nC. Brightfield Daily '
        'Supplement is a product (the "Product").'
    )
    assert extract_parties_from_text(text) == ["Brightfield Nutrition LLC", "Dana Moreau"]


def test_common_nouns_joined_by_a_later_between_are_not_parties() -> None:
    text = (
        'This Sponsorship Agreement is entered into by Harbor Ballpark Funding LLC ("HBF") '
        "and the sponsor whose name appears below.\n\n1. Benefits. HBF provides the benefits "
        "except for conflicts between Playoff Season Games and World Series Games."
    )
    assert extract_parties_from_text(text) == ["Harbor Ballpark Funding LLC"]


def test_its_role_before_a_party_name_is_skipped() -> None:
    text = (
        "This Distribution Agreement is entered into by and between Acme Incentive Services, "
        'L.L.C., a Missouri limited liability company ("AEIS"), and its Reseller, Schoolpop '
        'Kids, Inc., a Delaware corporation ("Reseller").'
    )
    assert extract_parties_from_text(text) == [
        "Acme Incentive Services, L.L.C.",
        "Schoolpop Kids, Inc.",
    ]


def test_a_lower_case_corporation_closes_a_name() -> None:
    text = (
        "This Maintenance Agreement is made between SAGEM S.A., whose address is 33 route de "
        "la Dame, Fontainebleau (hereinafter referred to as MORPHO) and XIMAGE corporation "
        "whose address is 1050 North Fifth Street, San Jose (hereinafter referred to as XIMAGE)."
    )
    assert extract_parties_from_text(text) == ["SAGEM S.A.", "XIMAGE corporation"]


def test_defined_terms_joined_by_and_are_not_a_party() -> None:
    text = (
        "This Consulting Agreement is entered into by and between Consultant and Company "
        "on the date below.\n\nKelvar Labs, Inc.\nBy: /s/ Ann Lee\n"
    )
    assert "Consultant and Company" not in extract_parties_from_text(text)


def test_a_title_between_stops_where_the_preamble_sentence_starts() -> None:
    text = (
        "HOSTING AGREEMENT by and between NORDTEL and K-Mobile (K-Mobile hosting NORDTEL) "
        'This Agreement is made between "Nordtel Holding AG", a company incorporated under '
        "the laws of Switzerland, and K-Mobile Netherlands B.V., a Dutch company."
    )
    names = extract_parties_from_text(text)
    assert "NORDTEL and K-Mobile" not in names
    assert len(names) == 2


def test_a_party_below_a_closed_defined_term_and_a_dashed_and() -> None:
    text = (
        "THIS AGREEMENT made June 30 BETWEEN: TALLIS MEDIA, L.P., represented by its partner "
        '(hereinafter called "TM")      - and -      NORWEND.COM INC. a California corporation '
        '(hereinafter called "NW") WHEREAS TM hosts a web site.'
    )
    assert extract_parties_from_text(text) == ["TALLIS MEDIA, L.P.", "NORWEND.COM INC"]


def test_a_form_field_names_the_party_the_preamble_leaves_blank() -> None:
    text = (
        "Agreement Number: 42  Company Name:  Quillan Data, Inc.\n\nThis AGREEMENT is entered "
        'into by and between Orbis Bank, N.A. ("Orbis"), and the above-named Supplier.'
    )
    parties = extract_parties(text)
    assert [(f.value.name, f.value.role, f.rule) for f in parties] == [
        ("Quillan Data, Inc.", "company", "labelled_line"),
        ("Orbis Bank, N.A.", None, "preamble"),
    ]
    spaced = (
        'This Agreement is made by and between Vesta Labs, LLC ("Vesta") and the company set '
        'forth below ("Company"):   Company: Brondel Systems, Inc. (BRD) Telephone: 555'
    )
    assert extract_parties_from_text(spaced) == ["Vesta Labs, LLC", "Brondel Systems, Inc."]


def test_a_letter_date_is_not_a_party_and_a_name_after_a_verb_is() -> None:
    letter = (
        "CONSULTING AGREEMENT\n\nMay 12, 2019\n\nDear Anna:\n\nCorvex, Inc, a Texas corporation "
        '(the "Company"), is pleased to retain Anna Pirelli ("Consultant") as follows.'
    )
    assert extract_parties_from_text(letter) == ["Corvex, Inc", "Anna Pirelli"]
    power = (
        "KNOW ALL MEN BY THESE PRESENTS, that DUNMERE CAPITAL COMPANY, a Delaware statutory "
        'trust (the "Adviser"), does hereby appoint DUNMERE RESEARCH COMPANY, a Delaware '
        'statutory trust ("DRC"), to act as its agent.'
    )
    assert extract_parties_from_text(power) == [
        "DUNMERE CAPITAL COMPANY",
        "DUNMERE RESEARCH COMPANY",
    ]


def test_a_place_in_a_description_is_not_read_as_a_party() -> None:
    text = (
        'THIS AGREEMENT is made between HALDEN CAPITAL CORP. (the "Issuer") and the sponsor, '
        "a company amalgamated under the laws of British Columbia, having its office in "
        'Vancouver (the "Sponsor").'
    )
    assert extract_parties_from_text(text) == ["HALDEN CAPITAL CORP"]


def test_numbered_parties_introduced_as_a_company_and_a_person() -> None:
    text = (
        "PARTIES (1) Marlow Analytics UK Limited is a company registered in England whose "
        'office is at 2 Fleet Lane, London (the "Employer"); and (2) Edwin Carrow of [address '
        'removed] (the "Executive"). AGREED TERMS 1. Definitions.'
    )
    assert extract_parties_from_text(text) == ["Marlow Analytics UK Limited", "Edwin Carrow"]


def test_a_first_recital_introduces_the_parties_of_a_contract_without_preamble() -> None:
    text = (
        "Supply Agreement   WHEREAS VORTEXA is a pharmaceutical company with offices at 1 Penn "
        'Plaza ("VORTEXA") and Alharbi Medical Co. LTD is a distribution company located in '
        'Riyadh ("ALH"), each a "Party", and WHEREAS VORTEXA owns a drug.'
    )
    assert extract_parties_from_text(text) == ["VORTEXA", "Alharbi Medical Co. LTD"]


def test_a_calling_before_a_name_and_a_slash_inside_one() -> None:
    golfer = (
        "This Agreement is entered into on May 2 between professional golfer, ANNA FELL, "
        '(hereinafter referred to as "CONSULTANT") and BRIXTON GOLF, LTD. (hereinafter '
        'referred to as "BRIXTON").'
    )
    assert extract_parties_from_text(golfer) == ["ANNA FELL", "BRIXTON GOLF, LTD"]
    fund = (
        'THIS AGREEMENT (this "Agreement") between Harrow / KPS Credit Income Fund, a Delaware '
        'statutory trust ("Client") and Pellam Services LLC, a New Jersey company ("Agent").'
    )
    assert extract_parties_from_text(fund) == [
        "Harrow / KPS Credit Income Fund",
        "Pellam Services LLC",
    ]


def test_companies_listed_by_commas_each_closed_by_a_legal_form() -> None:
    title = (
        "PATENT AGREEMENT\n\nby and among\n\nKELVAR INDUSTRIES CORPORATION,\n\nRONDO LIFTS "
        "CORPORATION\n\nand\n\nBRAXTON CLIMATE CORPORATION\n\nDated as of April 2, 2020"
    )
    assert extract_parties_from_text(title)[:2] == [
        "KELVAR INDUSTRIES CORPORATION",
        "RONDO LIFTS CORPORATION",
    ]
    long_address = (
        "This AGREEMENT is made by and among\n\nVolta, Inc., a Connecticut corporation with its "
        'place of business at 15 Secor Road ("Volta"),\n\nNiwa Printing Co., Ltd., a Japanese '
        "corporation with its principal place of business at 1-1 Ichigaya Kagacho, Shinjuku-ku, "
        'Tokyo, Japan ("NP"), and\n\nVolta Mask Corporation, a Taiwan company ("VMC").'
    )
    assert extract_parties_from_text(long_address) == [
        "Volta, Inc.",
        "Niwa Printing Co., Ltd.",
        "Volta Mask Corporation",
    ]


def test_an_operative_first_sentence_names_a_subject_and_a_company_by_its_legal_form() -> None:
    text = (
        "CONTRAT DE SOUS-TRAITANCE\n\nARTICLE 1 — PRESTATIONS\nMarvel Transports prépare "
        "depuis son entrepôt de Rennes les commandes de Pelouse Médical SAS, chaque jour.\n"
    )
    parties = extract_parties(text)
    assert [(f.value.name, f.rule) for f in parties] == [
        ("Marvel Transports", "operative_sentence"),
        ("Pelouse Médical SAS", "operative_sentence"),
    ]
    assert all(f.confidence <= 0.6 for f in parties)
    places_only = "ARTICLE 1 — OBJET\nMarvel Transports livre chaque jour les magasins de Rennes.\n"
    assert extract_parties_from_text(places_only) == []


def test_a_street_and_a_town_around_a_preposition_are_not_parties() -> None:
    text = (
        "BAIL COMMERCIAL\nARTICLE 1 — DÉSIGNATION\nEntrepôt avec quatre quais, rue de la\n"
        "Garenne à Carquefou (44470).\nARTICLE 2 — DURÉE\nNeuf années.\n"
    )
    assert extract_parties(text) == []


def test_an_operative_sentence_wrapped_by_the_pdf_still_names_both_parties() -> None:
    text = (
        "CONTRAT DE SOUS-TRAITANCE\nARTICLE 1 — PRESTATIONS\nRibault  Logistique  prépare  et  "
        "expédie  depuis  son  entrepôt  les  commandes  de\nSoravie Santé SAS, dans le respect "
        "des températures.\nARTICLE 3 — TARIFS\nChaque colis est facturé.\n"
    )
    assert [finding.value.name for finding in extract_parties(text)] == [
        "Ribault Logistique",
        "Soravie Santé SAS",
    ]
