"""Contract dates read from text: agreement, effective (pure functions); expiration and
renewal are in test_extraction_expiration.py."""

from __future__ import annotations

import pytest

from documents.extraction import (
    Expiration,
    Finding,
    PartialDate,
    Unknown,
    agreement_date,
    effective_date,
    expiration,
    renewal,
)
from lab.documents.evals import (
    DatesTally,
    date_miss,
    expiration_golds,
    gold_date,
    score_expiration,
)


def _found(result: Finding | Unknown) -> Finding:
    assert isinstance(result, Finding), result
    return result


# --- agreement date --------------------------------------------------------------------------


def test_agreement_date_reads_the_preamble_and_locates_the_words() -> None:
    text = (
        "SUPPLY AGREEMENT\n\nThis Supply Agreement is made and entered into as of March 5, 2004, "
        "by and between Acme Corp. and Widget LLC."
    )
    finding = _found(agreement_date(text))
    assert finding.value == PartialDate(2004, 3, 5)
    assert finding.rule == "preamble"
    assert finding.confidence == pytest.approx(0.95)
    assert "March 5, 2004" in text[finding.start : finding.end]


def test_agreement_date_keeps_a_month_known_only_to_the_month() -> None:
    text = "This License Agreement is dated as of February ___, 2017 between Alpha Inc. and Beta."
    assert _found(agreement_date(text)).value == PartialDate(2017, 2)


@pytest.mark.parametrize(
    "text",
    [
        "THIS AGREEMENT is made this ___ day of ______, 2004, between Alpha Inc. and Beta Ltd.",
        "This Services Agreement is entered into on [●] 2020 by Alpha SA and Beta SAS.",
        "OUTSOURCING AGREEMENT dated as of , 2012 between Alpha LLC and Beta LLC",
    ],
)
def test_agreement_date_keeps_a_year_when_day_and_month_are_blank(text: str) -> None:
    value = _found(agreement_date(text)).value
    assert value.precision == "year"


def test_agreement_date_reads_french_preamble_and_signature_block() -> None:
    preamble = "CONTRAT DE PRESTATION en date du 1er février 2022 entre la société Alpha et Beta."
    assert _found(agreement_date(preamble)).value == PartialDate(2022, 2, 1)
    closing = (
        "Entre Alpha SAS et Beta SARL.\n\nArticle 1 — Objet\n...\n\nFait à Lyon, le 12 mars 2023"
    )
    finding = _found(agreement_date(closing))
    assert finding.value == PartialDate(2023, 3, 12)
    assert finding.rule == "signature_block"


def test_agreement_date_reads_the_date_under_the_signatures() -> None:
    text = (
        "This Agreement is made between Alpha Inc. and Beta Ltd.\n\n1. Services. ...\n\n"
        "IN WITNESS WHEREOF, the parties have signed this Agreement.\n"
        "ALPHA INC.\nBy: /s/ J. Smith\nDate: June 3, 2019\n"
    )
    assert _found(agreement_date(text)).value == PartialDate(2019, 6, 3)


def test_agreement_date_never_guesses_an_impossible_date() -> None:
    result = agreement_date("Contrat de bail conclu le 31/02/2024 entre Alpha et Beta.")
    assert isinstance(result, Unknown)
    assert result.reason == "impossible_date"
    assert "31/02/2024" in result.evidence


def test_agreement_date_with_a_two_digit_year_is_never_shown_as_certain() -> None:
    finding = _found(agreement_date("This Agreement is dated 03/05/04 between Alpha and Beta."))
    assert finding.value.year == 2004
    assert finding.confidence <= 0.6


def test_contradictory_preamble_and_signature_block_give_alternatives() -> None:
    text = (
        "This Agreement is made as of March 1, 2021 between Alpha Inc. and Beta Ltd.\n\n"
        "1. Services. ...\n\nIN WITNESS WHEREOF the parties have executed this Agreement.\n"
        "Date: March 3, 2021\n"
    )
    finding = _found(agreement_date(text))
    assert finding.value == PartialDate(2021, 3, 1)
    assert [alternative.value for alternative in finding.alternatives] == [PartialDate(2021, 3, 3)]
    assert finding.confidence < 0.95


def test_signature_block_referring_back_agrees_with_the_preamble() -> None:
    text = (
        "This Agreement is made as of July 1, 2015 between Alpha and Beta.\n\n"
        "IN WITNESS WHEREOF, the parties have executed this Agreement as of the date first "
        "written above."
    )
    finding = _found(agreement_date(text))
    assert finding.value == PartialDate(2015, 7, 1)
    assert finding.alternatives == ()


def test_agreement_date_keeps_the_day_of_this_nth_day_of() -> None:
    text = "This Agreement is made this 5th day of January, 2015 between Alpha Inc. and Beta."
    assert _found(agreement_date(text)).value == PartialDate(2015, 1, 5)


def test_an_unlabelled_date_under_the_signatures_is_the_agreement_date() -> None:
    text = (
        "The parties agree as follows: 1. Services. "
        + "Alpha shall provide the services. " * 60
        + "\n\nIN WITNESS WHEREOF, the Parties execute this Agreement.\n\n"
        "/s/ Jane Doe    5/17/12    JANE DOE\n     Date\n"
        "Alpha Inc.  By: /s/ John Roe  Title: President  Date: June 2, 2012"
    )
    finding = _found(agreement_date(text))
    assert finding.value == PartialDate(2012, 6, 2)
    assert finding.rule == "signature_area"
    assert finding.confidence <= 0.6


def test_no_preamble_and_no_date_is_not_found() -> None:
    assert agreement_date("The parties agree as follows: 1. Services.") == Unknown("not_found")


def test_a_recital_about_an_earlier_agreement_is_not_the_agreement_date() -> None:
    text = (
        "AMENDMENT NO. 1\n\nThis Amendment to the Supply Agreement dated April 1, 2017 is made "
        "as of June 22, 2018 between Alpha and Beta."
    )
    assert _found(agreement_date(text)).value == PartialDate(2018, 6, 22)


# --- effective date --------------------------------------------------------------------------


def test_effective_date_defined_as_the_date_first_written_above_is_the_agreement_date() -> None:
    text = 'This Agreement takes effect on the date first written above (the "Effective Date").'
    finding = _found(effective_date(text, PartialDate(2015, 7, 1)))
    assert finding.value == PartialDate(2015, 7, 1)
    assert finding.rule == "effective_date_is_agreement_date"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("This Agreement shall become effective on January 1, 2021.", PartialDate(2021, 1, 1)),
        ("Le présent contrat prend effet le 1er avril 2023.", PartialDate(2023, 4, 1)),
        ("La convention entre en vigueur le 15 septembre 2022.", PartialDate(2022, 9, 15)),
        ('effective as of May 2, 2019 (the "Effective Date")', PartialDate(2019, 5, 2)),
    ],
)
def test_effective_date_reads_english_and_french_wording(text: str, expected: PartialDate) -> None:
    assert _found(effective_date(text, None)).value == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1.4 EFFECTIVE DATE     means 18 May 2000;", PartialDate(2000, 5, 18)),
        (
            "The commencement date for this contract will be 16th June 2004.",
            PartialDate(2004, 6, 16),
        ),
    ],
)
def test_an_unquoted_effective_or_commencement_date_definition_beats_the_agreement_date(
    text: str, expected: PartialDate
) -> None:
    assert _found(effective_date(text, PartialDate(2001, 12, 15))).value == expected


def test_a_silent_contract_takes_effect_on_its_agreement_date_with_low_confidence() -> None:
    finding = _found(effective_date("The parties agree as follows.", PartialDate(2020, 6, 1)))
    assert finding.value == PartialDate(2020, 6, 1)
    assert finding.confidence <= 0.6
    assert effective_date("The parties agree as follows.", None) == Unknown("not_found")


# --- robustness ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\x00\x01\xff" * 500,
        "dated " + "9" * 1_000_000,
        "a" * 1_000_000,
        "This Agreement is dated 99/99/99 and expires on 00/00/0000 until 32/13/2020.",
        "term of 999 years from the Effective Date; renew for 999 months; notice 999 days",
        "This ___ day of ____, 20__ ; IN WITNESS WHEREOF",
    ],
)
def test_odd_inputs_never_raise(text: str) -> None:
    agreed = agreement_date(text)
    agreed_value = agreed.value if isinstance(agreed, Finding) else None
    effective = effective_date(text, agreed_value)
    assert isinstance(effective, Finding | Unknown)
    assert isinstance(expiration(text, PartialDate(9999, 12, 31)), Finding | Unknown)
    assert isinstance(renewal(text), Finding | Unknown)


# --- CUAD scorer -----------------------------------------------------------------------------


def test_cuad_gold_dates_keep_their_precision() -> None:
    assert gold_date("02/[]/2017") == PartialDate(2017, 2)
    assert gold_date("[]/[]/2015") == PartialDate(2015)
    assert gold_date("7/31/2000; 07/[]/2000") == PartialDate(2000, 7, 31)
    assert gold_date("[]/[]/[]") is None


def test_an_answer_coarser_than_the_gold_is_wrong() -> None:
    assert date_miss(PartialDate(2017, 2, 14), PartialDate(2017, 2)) is None
    assert date_miss(PartialDate(2017), PartialDate(2017, 2)) == "coarser than gold"
    assert date_miss(None, PartialDate(2017)) == "none found"


def test_expiration_gold_listing_two_answers_accepts_either() -> None:
    perpetual = Finding(Expiration("perpetual"), "", "perpetual")
    assert score_expiration("09/05/2019; perpetual", perpetual) == (True, True, None)


def test_expiration_gold_with_a_century_slip_is_read_a_century_later() -> None:
    answers, slipped = expiration_golds("12/31/1934")
    assert answers == ["12/31/2034"] and slipped
    assert expiration_golds("12/31/2004") == (["12/31/2004"], False)


def test_the_tally_scores_one_made_up_contract() -> None:
    text = (
        "This Agreement is made as of January 22, 2007 between Alpha and Beta. The initial term "
        "of this Agreement is two (2) years from the Effective Date, and it shall automatically "
        "renew for successive one (1) year periods."
    )
    row = {
        "Agreement Date-Answer": "1/22/2007",
        "Effective Date-Answer": "1/22/2007",
        "Expiration Date-Answer": "1/22/2009",
        "Renewal Term-Answer": "successive 1 year",
    }
    tally = DatesTally()
    tally.add("made-up.txt", row, text)
    result = tally.result()
    assert result["agreement_date"]["accuracy"] == 1.0
    assert result["expiration"]["accuracy"] == 1.0
    assert result["expiration"]["strict_accuracy"] == 0.0
    assert result["renewal_present"]["accuracy"] == 1.0


# --- what is not the date of signing (French contracts without a preamble) ------------------


@pytest.mark.parametrize(
    "text",
    [
        "BAIL DE BUREAUX\n\nARTICLE 2 — DURÉE\n"
        "Le bail court du 1er février 2023 au 31 janvier 2032.",
        "CONTRAT DE TRAVAIL\n\nARTICLE 1 — POSTE\nCadre, à compter du 3 juin 2024.",
        "LETTRE DE MISSION\n\nARTICLE 2 — DURÉE\nLa mission commence le 1er décembre 2025 et "
        "s'achève au plus tard le 30 novembre 2026.",
        "CONTRAT DE CRÉDIT\n\nARTICLE 2\nLa première échéance est exigible le 20 avril 2025.",
        "AVENANT N°1\n\nARTICLE 1\nLes parties modifient le contrat de fourniture qu'elles ont "
        "signé le 19 juin 2023.\n\nARTICLE 2 — REPORT DU TERME\nLa fin, initialement fixée au "
        "30 juin 2026, est reportée au 30 juin 2028.",
    ],
)
def test_start_end_and_cited_dates_are_not_the_signature(text: str) -> None:
    assert agreement_date(text) == Unknown("not_found")


def test_this_contract_concluded_on_a_date_is_signed_then() -> None:
    found = _found(agreement_date("Le présent contrat, conclu le 12 mars 2023, a pour objet…"))
    assert found.value == PartialDate(2023, 3, 12)


@pytest.mark.parametrize(
    "text",
    [
        "SUPPLY AGREEMENT\n\nThis Supply Agreement is between Alpha Inc. and Beta LLC.\n\n"
        + "Recital. " * 60
        + "\n3. Payment. Payments shall be made on or before January 15, 2024.",
        "AGREEMENT\n\n" + "Recital. " * 60 + "(as defined in the Purchase Agreement dated June 3, "
        "2019)",
        "AMENDMENT NO. 2\n\nThe parties executed the original agreement on June 1, 2015.",
        "AVENANT N°1\n\nLes parties ont signé le 12 janvier 2015 un bail commercial.",
        "IN WITNESS WHEREOF\nBy: ____\nName: John Smith\nDate of birth: 4 July 1980",
    ],
)
def test_payment_cited_amended_and_birth_dates_are_not_the_signature(text: str) -> None:
    assert isinstance(agreement_date(text), Unknown)
