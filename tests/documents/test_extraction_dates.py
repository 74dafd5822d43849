"""Contract dates read from text: agreement, effective, expiration, renewal (pure functions)."""

from __future__ import annotations

from datetime import date

import pytest

from documents.evals._cuad_dates import (
    DatesTally,
    date_miss,
    expiration_golds,
    gold_date,
    score_expiration,
)
from documents.extraction import (
    Expiration,
    Finding,
    PartialDate,
    Renewal,
    Unknown,
    agreement_date,
    derive_end_date,
    effective_date,
    expiration,
    renewal,
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


def test_a_silent_contract_takes_effect_on_its_agreement_date_with_low_confidence() -> None:
    finding = _found(effective_date("The parties agree as follows.", PartialDate(2020, 6, 1)))
    assert finding.value == PartialDate(2020, 6, 1)
    assert finding.confidence <= 0.6
    assert effective_date("The parties agree as follows.", None) == Unknown("not_found")


# --- expiration ------------------------------------------------------------------------------


def test_initial_term_in_years_runs_through_the_day_before_the_anniversary() -> None:
    text = (
        "2. Term. This Agreement shall have an initial term of two (2) years from the "
        "Effective Date, unless earlier terminated."
    )
    finding = _found(expiration(text, PartialDate(2007, 1, 22)))
    assert finding.value == Expiration("date", PartialDate(2009, 1, 21), term_months=24)


def test_expiration_reads_an_explicit_end_date() -> None:
    text = "3. Term of Agreement. This Agreement shall continue until December 31, 2020."
    finding = _found(expiration(text, PartialDate(2020, 6, 1)))
    assert finding.value == Expiration("date", PartialDate(2020, 12, 31))
    assert finding.rule == "explicit_end_date"


def test_french_duration_counts_from_the_effective_date() -> None:
    text = "ARTICLE 3 — DURÉE\nLe bail est consenti pour une durée de neuf ans."
    finding = _found(expiration(text, PartialDate(2019, 11, 1)))
    assert finding.value == Expiration("date", PartialDate(2028, 10, 31), term_months=108)


@pytest.mark.parametrize(
    "text",
    [
        "This Agreement shall continue in full force and effect until terminated by either party.",
        "Le présent contrat est conclu pour une durée indéterminée.",
        "The licence granted hereunder is perpetual.",
    ],
)
def test_perpetual_contracts_are_recorded_as_perpetual(text: str) -> None:
    assert _found(expiration(text, None)).value == Expiration("perpetual")


def test_term_counted_from_an_undated_event_is_start_unknown() -> None:
    text = (
        "8.1 Term. The term of this Agreement shall continue for one (1) year following the "
        "first commercial sale of the Product."
    )
    result = expiration(text, PartialDate(2019, 6, 21))
    assert isinstance(result, Unknown) and result.reason == "start_unknown"
    assert "one (1) year" in result.evidence


def test_term_without_a_known_effective_date_is_start_unknown() -> None:
    result = expiration("This Agreement is entered into for a term of three (3) years.", None)
    assert isinstance(result, Unknown) and result.reason == "start_unknown"


def test_term_from_an_effective_date_known_to_the_year_keeps_the_year() -> None:
    text = "The term of this Agreement shall be for 10 years commencing on the date of execution."
    finding = _found(expiration(text, PartialDate(2000)))
    assert finding.value.date == PartialDate(2010)
    assert finding.confidence <= 0.6


def test_the_term_clause_wins_over_a_survival_period_elsewhere() -> None:
    text = (
        "9. Confidentiality. During the term of this Agreement and for five (5) years "
        "thereafter, each party shall keep the other's information secret.\n\n"
        "12. Term. This Agreement shall commence on the Effective Date and shall continue in "
        "effect for a period of three (3) years, unless earlier terminated."
    )
    finding = _found(expiration(text, PartialDate(2016, 5, 17)))
    assert finding.value == Expiration("date", PartialDate(2019, 5, 16), term_months=36)


def test_term_clause_reads_the_anniversary_inside_an_earlier_of() -> None:
    text = (
        "This Agreement is effective on the Effective Date and shall continue in effect until "
        "the earlier of (a) the fifth (5t h) anniversary of the Effective Date, and (b) "
        "termination by either Party upon thirty (30) days' notice."
    )
    finding = _found(expiration(text, PartialDate(2012, 8, 16)))
    assert finding.value.date == PartialDate(2017, 8, 16)
    assert finding.rule == "anniversary"


def test_term_clause_reads_a_year_anniversary_and_the_day_prior_to_one() -> None:
    text = "The initial term shall end on the five (5) year anniversary of the Effective Date."
    assert _found(expiration(text, PartialDate(2019, 11, 12))).value.date == PartialDate(
        2024, 11, 12
    )
    text = (
        "INITIAL TERM shall mean the Effective Date through the day prior to the second "
        "anniversary of the Effective Date."
    )
    assert _found(expiration(text, PartialDate(1999, 11, 19))).value.date == PartialDate(
        2001, 11, 18
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("TERM: November 01, 2014 to October 31, 2017", PartialDate(2017, 10, 31)),
        (
            "The Term shall begin on the date hereof and shall expire December 31, 2023. "
            "Flotek may elect for the Term to be extended to December 31, 2024.",
            PartialDate(2023, 12, 31),
        ),
    ],
)
def test_term_clause_date_that_is_not_the_start_is_the_end(
    text: str, expected: PartialDate
) -> None:
    assert _found(expiration(text, PartialDate(2014, 11, 1))).value.date == expected


@pytest.mark.parametrize(
    "text",
    [
        "This Agreement shall commence on the Effective Date and shall continue until the "
        'expiration or earlier termination of the License Agreement (the "Term").',
        "The term of this Agreement will commence on the date the form is approved and will "
        "end when terminated by either party.",
    ],
)
def test_a_term_clause_running_until_an_event_is_perpetual(text: str) -> None:
    assert _found(expiration(text, PartialDate(2018, 3, 20))).value == Expiration("perpetual")


def test_an_automatic_renewal_after_an_initial_term_keeps_the_initial_end() -> None:
    text = (
        "The initial term of this Agreement shall commence on the Effective Date and extend for "
        "three (3) years thereafter, with an automatic renewal for an indefinite period of time."
    )
    finding = _found(expiration(text, PartialDate(2002, 1, 21)))
    assert finding.value.date == PartialDate(2005, 1, 20)


@pytest.mark.parametrize(
    ("text", "end", "rule"),
    [
        (
            "This agreement shall begin upon its execution and shall remain in effect until the "
            "end of the current calendar year.",
            PartialDate(2014, 12, 31),
            "year_end_of_start",
        ),
        (
            "This agreement will be in effect until the end of 2006 and will then be reviewed.",
            PartialDate(2006, 12, 31),
            "year_end",
        ),
    ],
)
def test_a_term_until_the_end_of_a_year_ends_on_31_december(
    text: str, end: PartialDate, rule: str
) -> None:
    finding = _found(expiration(text, PartialDate(2014, 5, 8)))
    assert (finding.value.date, finding.rule) == (end, rule)


def test_a_date_whose_comma_was_read_as_a_full_stop_is_still_a_date() -> None:
    text = "This Agreement shall be in effect until March 18. 2021, unless sooner terminated."
    finding = _found(expiration(text, PartialDate(2020, 3, 19)))
    assert finding.value.date == PartialDate(2021, 3, 18)


def test_a_capital_i_for_the_digit_one_still_counts_one_year() -> None:
    text = "The term of this Agreement shall be one (I) year from the Effective Date."
    finding = _found(expiration(text, PartialDate(2020, 3, 1)))
    assert finding.value.date == PartialDate(2021, 2, 28)


def test_a_quoted_initial_term_and_an_initial_term_of_years_are_term_clauses() -> None:
    quoted = (
        'The "Initial Term" shall commence upon the Effective Date and shall expire on '
        "March 31, 2011."
    )
    assert _found(expiration(quoted, PartialDate(2006, 3, 6))).value.date == PartialDate(
        2011, 3, 31
    )
    text = (
        "The Agreement shall have an initial term of ten (10) years commencing from the "
        "Effective Date. Confidentiality obligations shall survive indefinitely."
    )
    assert _found(expiration(text, PartialDate(2019, 3, 27))).value.date == PartialDate(2029, 3, 26)


def test_an_explicit_end_in_the_next_sentence_beats_the_duration() -> None:
    text = (
        "1. Term. This Agreement shall have an Initial Term of three (3) years. The Term shall "
        "commence on July 23, 2013 and shall expire on July 22, 2016."
    )
    finding = _found(expiration(text, PartialDate(2013, 7, 26)))
    assert (finding.value.date, finding.rule) == (PartialDate(2016, 7, 22), "explicit_end_date")


def test_a_survival_period_is_not_the_term() -> None:
    text = (
        "Audit. Each Party will, during the Term and for a period of one (1) year thereafter, "
        "keep books. The obligations shall survive the expiration of this Agreement for a "
        "period of five (5) years."
    )
    assert expiration(text, PartialDate(2016, 5, 17)) == Unknown("not_found")


@pytest.mark.parametrize(
    "text",
    [
        # a duration from an undated event, or until another agreement ends
        "This Agreement shall continue in force for a period being the longer of fifteen (15) "
        "years from first Commercial Launch or until the expiration of the last valid claim.",
        "Your employment shall commence on 26 September 2019 and shall continue unless and until "
        "either party gives notice to the other.",
        # termination on an event only, and no fixed term anywhere
        "This Agreement shall expire if the Adviser ceases to serve as investment adviser to "
        "the Licensee.",
    ],
)
def test_contracts_without_a_calendar_end_are_perpetual(text: str) -> None:
    finding = _found(expiration(text, PartialDate(2019, 9, 26)))
    assert finding.value == Expiration("perpetual")
    assert finding.confidence <= 0.8


def test_termination_for_cause_next_to_an_unread_term_is_not_perpetual() -> None:
    text = (
        "The Initial Term is set out in the Schedule. This Agreement shall terminate upon the "
        "dissolution of the Client."
    )
    assert expiration(text, PartialDate(2019, 9, 26)) == Unknown("not_found")


def test_a_text_whose_lower_case_is_longer_keeps_its_positions() -> None:
    # "İ" lower-cases to two characters: the key-word scan must not shift the positions.
    text = (
        "İSTANBUL İŞ ORTAKLIĞI. The term of this Agreement shall be two (2) years. This "
        "Agreement shall automatically renew for successive one (1) year periods."
    )
    finding = _found(expiration(text, PartialDate(2020, 1, 1)))
    assert finding.value.date == PartialDate(2021, 12, 31)
    assert text[finding.start : finding.end] == "two (2) years"
    assert _found(renewal(text)).value == Renewal(True, 12, None)


def test_derive_end_date_gives_none_for_a_duration_from_an_undated_event() -> None:
    text = "The term of this Agreement is two (2) years after the first delivery of Products."
    assert derive_end_date(text, date(2024, 1, 1)) is None


# --- renewal ---------------------------------------------------------------------------------


def test_automatic_renewal_with_period_and_notice() -> None:
    text = (
        "This Agreement shall automatically renew for successive one (1) year periods unless "
        "either party gives ninety (90) days' prior written notice of non-renewal."
    )
    assert _found(renewal(text)).value == Renewal(True, term_months=12, notice_days=90)


def test_french_tacite_reconduction_with_notice_in_months() -> None:
    text = (
        "Le contrat se renouvellera par tacite reconduction pour des périodes successives d'un "
        "an, sauf dénonciation par l'une des parties moyennant un préavis de trois mois."
    )
    assert _found(renewal(text)).value == Renewal(True, term_months=12, notice_days=90)


@pytest.mark.parametrize(
    ("text", "automatic"),
    [
        (
            "After the Initial Term, this Agreement shall continue on a month to month basis "
            "until terminated by either party upon thirty (30) days prior written notice.",
            True,
        ),
        (
            "Thereafter, this Agreement shall automatically continue in effect until either "
            "party gives the other at least six (6) months prior written notice.",
            True,
        ),
        (
            "Thereafter, Alpha shall have consecutive separate options to extend the Term for "
            "successive renewal terms of five (5) years each.",
            False,
        ),
    ],
)
def test_renewal_read_from_continuation_and_extension_wording(text: str, automatic: bool) -> None:
    assert _found(renewal(text)).value.automatic is automatic


def test_an_extension_needing_both_parties_consent_is_no_renewal() -> None:
    text = "The term may be extended for two years with the written consent of both parties."
    assert renewal(text) == Unknown("not_found")


def test_renewal_by_mutual_agreement_is_not_a_renewal_term() -> None:
    text = "This Agreement may be renewed by mutual written agreement of the parties."
    assert renewal(text) == Unknown("not_found")


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
