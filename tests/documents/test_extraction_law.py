"""Governing law read from a contract's text: the clause a lawyer would read, not the first
state named near the word "law". Plain functions, made-up sentences, no database."""

from __future__ import annotations

import pytest

from documents.extraction import governing_law_from_text


def _law(text: str) -> str | None:
    finding = governing_law_from_text(text)
    return None if finding is None else str(finding.value)


@pytest.mark.parametrize(
    ("text", "label"),
    [
        # Split over lines, or over a page break.
        ("This Agreement shall be construed in accordance with the laws of the State of\n"
         "California, without reference to its choice of law rules.", "droit californien"),
        ("9. This Agreement is governed by the laws of the State of\n\n\x0c\nNew York.",
         "droit new-yorkais"),
        # The law before the verb, without a heading.
        ("Texas law shall govern this Agreement and every order placed under it.",
         "droit de l'État de Texas"),
        ("The laws of the Federal Republic of Germany shall apply to this Agreement.",
         "droit allemand"),
        # "performed" is not "formed under the laws of".
        ("8.6 Applicable Law. This Agreement shall be construed, enforced and performed in "
         "accordance with the laws of the State of California.", "droit californien"),
        # A capitalised heading ends at its full stop: the federal law is not the answer.
        ("10.4 GOVERNING LAW. This Agreement shall be governed by the laws of the United States "
         "and, to the extent not inconsistent therewith, by the laws of the Commonwealth of "
         "Kentucky.", "droit de l'État de Kentucky"),
    ],
)  # fmt: skip
def test_law_named_across_lines_or_before_its_verb_is_read(text: str, label: str) -> None:
    assert _law(text) == label


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("This Agreement has been made in the State of California and shall be governed by and "
         "construed in accordance with the laws thereof.", "droit californien"),
        ("This Agreement was accepted where Franchisor has its head office (currently the State "
         "of Texas) after review by both parties, and shall be governed by and construed in "
         "accordance with the laws of such state.", "droit de l'État de Texas"),
    ],
)  # fmt: skip
def test_laws_thereof_points_back_to_the_state_named_before(text: str, label: str) -> None:
    assert _law(text) == label


def test_a_thereof_with_no_state_in_its_sentence_gives_no_law() -> None:
    text = "Mr. Smith lives in Ohio. The Guarantee shall be governed by the laws thereof."
    assert _law(text) is None


def test_clause_about_the_agreement_wins_over_an_earlier_law_named_about_something_else() -> None:
    text = (
        "Counsel's opinion shall be limited to matters governed by the laws of Ohio.\n\n"
        "Distribution of the products shall be subject to all United States laws governing "
        "exports.\n\n"
        "17. Construction. This Agreement shall be construed in accordance with the laws of the "
        "State of New York."
    )
    assert _law(text) == "droit new-yorkais"


def test_first_law_near_a_trigger_is_read_when_no_clause_speaks_of_the_agreement() -> None:
    text = "Counsel's opinion shall be limited to matters governed by the laws of Ohio."
    assert _law(text) == "droit de l'État de Ohio"


def test_party_incorporation_before_a_govern_verb_is_not_the_law() -> None:
    preamble = (
        "Beta Corp., a company organized under the laws of the State of Delaware, having a place "
        "of business at 12 Elm Street, Springfield, Illinois, USA, agree that the following terms "
        "govern the sale of products between the parties.\n\n"
    )
    clause = "21. This Agreement is governed by the laws of the State of California."
    assert _law(preamble) is None
    assert _law(preamble + clause) == "droit californien"


def test_conflict_of_laws_words_do_not_name_the_law() -> None:
    text = (
        "Without regard to the conflicts of law principles of the State of Delaware, this "
        "Agreement is governed by the laws of the State of New York."
    )
    assert _law(text) == "droit new-yorkais"


@pytest.mark.parametrize(
    "text",
    [
        "12. GOVERNING LAW. All disputes shall be resolved by arbitration in Austin, Texas.",
        "Any lawsuit relating to this Agreement may be brought in a court located in the "
        "Commonwealth of Massachusetts.",
        "The fees in Schedule B shall apply during the Term. (a) Acme is a corporation in good "
        "standing under the laws of the State of New York.",
    ],
)
def test_forum_or_standing_clause_alone_gives_no_governing_law(text: str) -> None:
    assert _law(text) is None
