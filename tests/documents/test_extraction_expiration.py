"""Contract end dates and renewal read from text (pure functions)."""

from __future__ import annotations

from datetime import date

import pytest

from documents.extraction import (
    Expiration,
    Finding,
    PartialDate,
    Renewal,
    Unknown,
    derive_end_date,
    expiration,
    renewal,
)


def _found(result: Finding | Unknown) -> Finding:
    assert isinstance(result, Finding), result
    return result


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


def test_a_term_starting_on_a_written_date_is_counted_from_it() -> None:
    text = (
        "The term of this Agreement shall commence upon April 1, 2021 and shall continue for "
        "a period of six (6) months, unless earlier terminated."
    )
    finding = _found(expiration(text, PartialDate(2021, 4, 6)))
    assert finding.value.date == PartialDate(2021, 9, 30)


def test_a_date_defined_as_the_effective_date_is_not_the_end() -> None:
    text = (
        "The term of this Agreement shall become effective upon approval by the regulator no "
        'later than March 2, 2022 (such date, the "Effective Date") and shall end upon the '
        "termination of the Agreement as set forth in Section 9."
    )
    result = expiration(text, PartialDate(2022, 3, 2))
    assert not (isinstance(result, Finding) and result.value.kind == "date"), result


def test_in_no_event_later_than_caps_the_term() -> None:
    text = (
        "This Agreement shall commence as of the Effective Date and shall terminate five (5) "
        "years following the launch of the first Website, but in no event later than "
        'February 28, 2026 (the "Initial Term").'
    )
    finding = _found(expiration(text, PartialDate(2021, 1, 15)))
    assert finding.value.date == PartialDate(2026, 2, 28)


def test_a_numbered_term_heading_with_a_bare_date_range() -> None:
    text = "5. PRICE: as per Exhibit A\n6. TERM: November 01, 2020 to October 31, 2023\n"
    finding = _found(expiration(text, PartialDate(2020, 11, 1)))
    assert finding.value.date == PartialDate(2023, 10, 31)


def test_a_defined_period_running_through_to_a_date() -> None:
    text = '"Service Period" means April 1, 2019 through to March 30, 2020.'
    finding = _found(expiration(text, PartialDate(2019, 4, 1)))
    assert finding.value.date == PartialDate(2020, 3, 30)


def test_the_sentence_naming_the_initial_term_states_it_whatever_its_subject() -> None:
    text = (
        "Agent's appointment hereunder shall commence on the date hereof and shall continue "
        'for three years thereafter (the "Initial Term"), unless terminated earlier.'
    )
    finding = _found(expiration(text, PartialDate(2011, 1, 26)))
    assert finding.value.date == PartialDate(2014, 1, 25)


def test_a_term_ending_after_a_notice_runs_until_terminated() -> None:
    text = (
        "The term of this Agreement shall commence on the Effective Date and shall end on the "
        "60th day following a written notice from one party to the other of its decision to "
        "terminate this Agreement."
    )
    assert _found(expiration(text, PartialDate(2018, 8, 24))).value.kind == "perpetual"


@pytest.mark.parametrize(
    "text",
    [
        "It shall be effective on 06 October 2000 and shall have a duration of two years.",
        "This Agreement shall become effective on the date on which it is signed by each Party "
        "and have a term of two (2) years commencing as of the effective date hereof.",
    ],
)
def test_a_stated_duration_whatever_the_subject(text: str) -> None:
    finding = _found(expiration(text, PartialDate(2000, 10, 6)))
    assert finding.value.date == PartialDate(2002, 10, 5)


def test_a_word_ending_in_each_does_not_make_the_term_a_renewal_period() -> None:
    text = (
        "This Agreement will become effective as of the Effective Date and, unless sooner "
        "terminated pursuant to Section 10.2 [Termination for Breach], shall remain effective "
        'for two (2) years from and after the Effective Date (the "Initial Term").'
    )
    finding = _found(expiration(text, PartialDate(2000, 5, 22)))
    assert finding.value.date == PartialDate(2002, 5, 21)


def test_a_redacted_duration_is_no_date() -> None:
    text = (
        "This JV Agreement shall become effective on the signing date and shall have a "
        "duration of * years, extendable for a further * years."
    )
    assert isinstance(expiration(text, PartialDate(2020, 4, 2)), Unknown)


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


def test_an_end_counted_from_an_uncertain_start_is_no_surer_than_that_start() -> None:
    from documents.extraction import read_contract

    reading = read_contract(
        "Paris, 3 mars 2021\n\nCONTRAT DE SERVICES\n\nARTICLE 2 — DURÉE\n"
        "Le contrat est conclu pour une durée de trois ans."
    )
    end = _found(reading.expiration)
    assert end.value.date == PartialDate(2024, 3, 2)
    assert end.confidence <= _found(reading.agreement_date).confidence < 0.85
