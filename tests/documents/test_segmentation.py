"""Contracts cut as they are written: heading styles, false headings, pages saved as single
lines (SEC filings), exhibits, running headers and footers of PDFs."""

from __future__ import annotations

import json

import pytest

from documents.chunking import ChunkDraft, split_into_chunks
from documents.parsing import parse_document
from tests.helpers.data import shared_data


def articles(chunks: list[ChunkDraft]) -> list[tuple[str, str]]:
    """(heading, ref) of each article, a long article's parts counted once."""
    found: list[tuple[str, str]] = []
    for chunk in chunks:
        if chunk.heading and (chunk.heading, chunk.article_ref) not in found[-1:]:
            found.append((chunk.heading, chunk.article_ref))
    return found


def cut(text: str) -> list[tuple[str, str]]:
    return articles(split_into_chunks(text, [0]))


BODY = "The parties agree on the terms set out in this clause, which bind them both.\n"


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("1. Definitions", "2. Term", [("1. Definitions", "1"), ("2. Term", "2")]),
        ("1) Duties of Agent", "2) Fees", [("1) Duties of Agent", "1"), ("2) Fees", "2")]),
        ("SECTION 5. TERM", "SECTION 6. FEES", [("SECTION 5. TERM", "5"),
                                                ("SECTION 6. FEES", "6")]),
        ("ARTICLE IV", "ARTICLE V", [("ARTICLE IV", "4"), ("ARTICLE V", "5")]),
        ("Article 5 \u2013 Prix", "Article 6 \u2013 Dur\u00e9e",
         [("Article 5 \u2013 Prix", "5"), ("Article 6 \u2013 Dur\u00e9e", "6")]),
        ("GOVERNING LAW", "DEFINITIONS", [("GOVERNING LAW", ""), ("DEFINITIONS", "")]),
        ("Titre II", "Titre III", [("Titre II", "2"), ("Titre III", "3")]),
        ("Chapitre 1 — Objet", "Chapitre 2 — Prix",
         [("Chapitre 1 — Objet", "1"), ("Chapitre 2 — Prix", "2")]),
        ("Term: The term is one year.", "Fees: The fees are due monthly.",
         [("Term", ""), ("Fees", "")]),
    ],
)  # fmt: skip
def test_each_heading_style_opens_an_article(first: str, second: str, expected: list) -> None:
    text = f"Agreement between Alpha and Beta.\n\n{first}\n{BODY}\n{second}\n{BODY}"
    assert cut(text) == expected


def test_numbered_paragraphs_without_titles_are_articles_when_they_follow_each_other() -> None:
    text = (
        "CONSULTING AGREEMENT\n\n1. The Consultant shall advise the Company on its strategy.\n"
        "2. The Company shall pay the Consultant within thirty days.\n"
        "3. This Agreement is governed by the laws of Delaware.\n"
    )
    assert [ref for _heading, ref in cut(text)] == ["1", "2", "3"]


def test_subsections_open_their_article_when_its_heading_is_missing() -> None:
    text = (
        "Preamble of the agreement.\n1.1 Scope. The Supplier delivers the goods.\n"
        "1.2 Delivery. Delivery is made in Lyon.\n2.1 Price. The price is firm.\n"
        "2.2 Payment. Payment is due in thirty days.\n"
    )
    assert [ref for _heading, ref in cut(text)] == ["1", "2"]


def test_exhibits_and_schedules_after_the_articles_start_their_own_chunk() -> None:
    text = (
        "EXHIBIT 10.1\n\nSUPPLY AGREEMENT\n\n1. Products\n" + BODY + "\n2. Price\n" + BODY
        + "\nEXHIBIT A\n\n1. Product list\nWidgets and gadgets.\n\nSCHEDULE 1 — Fees\n"
        + "Ten euros a unit.\n"
    )  # fmt: skip
    assert cut(text) == [
        ("1. Products", "1"),
        ("2. Price", "2"),
        ("EXHIBIT A", "Exhibit A"),
        ("SCHEDULE 1 — Fees", "Schedule 1"),
    ]


def test_a_division_heading_stays_with_the_article_below_it() -> None:
    text = (
        "CONTRAT\n\nTITRE I — OBJET\nArticle 1 — Objet\nLa vente de matériel.\n\n"
        "TITRE II — PRIX\nArticle 2 — Prix\nLe prix est ferme.\n"
    )
    chunks = split_into_chunks(text, [0])
    assert articles(chunks) == [("Article 1 — Objet", "1"), ("Article 2 — Prix", "2")]
    assert chunks[-1].text.startswith("TITRE II — PRIX\nArticle 2")


@pytest.mark.parametrize(
    "inside",
    [
        "(a) the Supplier delivers;\n(b) the Client pays;\n(i) within thirty days.",
        "1. the Company shall deliver the goods;\n2. the Client shall pay the price.",
        "THE SOFTWARE IS PROVIDED AS IS WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED,\n"
        "INCLUDING THE WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE.",
        "IN WITNESS WHEREOF, the parties have signed this Agreement.",
        "Exhibit A attached hereto sets forth the prices.",
        "Section 4 shall survive termination of this Agreement.",
    ],
)
def test_false_headings_inside_a_clause_start_no_article(inside: str) -> None:
    text = f"1. Delivery\n{BODY}{inside}\n{BODY}\n2. Warranty\n{BODY}"
    assert cut(text) == [("1. Delivery", "1"), ("2. Warranty", "2")]


def test_a_table_of_contents_does_not_open_the_articles() -> None:
    toc = "TABLE OF CONTENTS\nARTICLE I DEFINITIONS ........ 1\nARTICLE II TERM ........ 4\n\n"
    text = f"{toc}ARTICLE I DEFINITIONS\n{BODY * 6}\nARTICLE II TERM\n{BODY * 6}"
    chunks = split_into_chunks(text, [0])
    assert articles(chunks) == [("ARTICLE I DEFINITIONS", "1"), ("ARTICLE II TERM", "2")]
    assert chunks[0].kind == "preamble" and "TABLE OF CONTENTS" in chunks[0].text


SEC_STYLE = (
    "EXHIBIT 10.4 SERVICES AGREEMENT This Services Agreement is made by and between Alpha "
    "Inc. and Beta LLC. The Parties hereby agree as follows: 1. Services. 1.1 Provision of "
    "Services. (a) Provider agrees to provide the Services set forth on Exhibit A in "
    "accordance with Section 2.1 of this Agreement. 1.2 Standard of Service. Provider "
    "represents that the Services shall be provided in good faith.   2. COMPENSATION 2.1 "
    "Fees. Recipient shall pay the fees within fifteen (15) days. 2.2 Invoice Disputes. "
    "Amounts not so disputed shall be deemed accepted.   3. Term and Termination   3.1 This "
    "Agreement terminates on December 31, 2020, unless terminated earlier under Section 3.2. "
    "3.2 Either party may terminate this Agreement at any time upon notice.\n\n2\n\n"
    "4. Governing Law. This Agreement is governed by the laws of the State of New York.\n"
)


def test_a_sec_filing_with_pages_on_single_lines_is_cut_at_its_articles() -> None:
    chunks = split_into_chunks(SEC_STYLE, [0])
    assert articles(chunks) == [
        ("1. Services", "1"),
        ("2. COMPENSATION", "2"),
        ("3. Term and Termination", "3"),
        ("4. Governing Law", "4"),
    ]
    assert chunks[0].text.endswith("agree as follows:")
    # Cross-references ("Section 2.1 of this Agreement") stay inside their clause.
    assert "Section 2.1 of this Agreement" in chunks[1].text


def _pdf_with_running_lines(pages: list[str]) -> bytes:
    fpdf = pytest.importorskip("fpdf")

    class Paged(fpdf.FPDF):  # type: ignore[misc]
        def header(self) -> None:
            self.set_font("Helvetica", size=8)
            self.cell(0, 6, "Alpha / Beta - Confidential", new_x="LMARGIN", new_y="NEXT")

        def footer(self) -> None:
            self.set_y(-15)
            self.set_font("Helvetica", size=8)
            self.cell(0, 6, f"Page {self.page_no()} of {{nb}}")

    pdf = Paged(format="A4")
    for page in pages:
        pdf.add_page()
        pdf.set_font("Helvetica", size=10)
        pdf.multi_cell(w=0, text=page)
    return bytes(pdf.output())


def test_running_headers_footers_and_page_numbers_of_a_pdf_are_left_out() -> None:
    pages = [
        "SUPPLY AGREEMENT\nBetween Alpha and Beta.\n1. Products\nThe Supplier sells widgets",
        "to the Client every month.\n2. Price\nTen euros a unit.",
        "3. Term\nOne year from signature.\nAlpha / Beta - Confidential appendix follows.",
    ]
    parsed = parse_document("supply.pdf", _pdf_with_running_lines(pages))
    assert "Confidential\n" not in parsed.text and "Page " not in parsed.text
    assert "Alpha / Beta - Confidential appendix follows." in parsed.text
    chunks = split_into_chunks(parsed.text, parsed.page_starts)
    assert articles(chunks) == [("1. Products", "1"), ("2. Price", "2"), ("3. Term", "3")]
    # The article that runs over a page break reads on, without the footer in between.
    assert "widgets\n\nto the Client" in chunks[1].text
    assert [c.page_start for c in chunks] == [1, 1, 2, 3]


def test_the_brenalis_contracts_keep_the_articles_they_write() -> None:
    path = shared_data("dataroom-brenalis", "exemple_data_room.json")
    for entry in json.loads(path.read_text(encoding="utf-8")):
        content = entry["content"]
        written = [
            (line.strip(), line.split(" — ")[0].split()[1])
            for line in content.split("\n")
            if line.startswith("ARTICLE ")
        ]
        assert cut(content) == written, entry["filename"]


def test_numbers_glued_to_their_text_open_articles() -> None:
    text = (
        "OUTSOURCING AGREEMENT\n\nNOW THEREFORE both parties agree as follows: 1.DGT shall pay "
        "Dolphin ten thousand dollars for the beta testing of the services. 2.Dolphin shall "
        "edit the photographs within two days of their download by its staff. 3.DGT may end "
        "this Agreement on thirty days notice to Dolphin in writing.\n\n"
        f"4.DEFINITIONS\n{BODY}"
    )
    assert [ref for _heading, ref in cut(text)] == ["1", "2", "3", "4"]


def test_lettered_articles_in_increasing_order_are_the_articles() -> None:
    text = (
        "AGENCY AGREEMENT\n\nMICOA and the Agency agree as follows.\n\n"
        f"A.       AUTHORITY OF AGENCY\n{BODY}\nB.       BILLED POLICIES\n{BODY}"
        f"\nC.       POLICY CANCELLATION\n{BODY}"
    )
    assert cut(text) == [
        ("A. AUTHORITY OF AGENCY", "A"),
        ("B. BILLED POLICIES", "B"),
        ("C. POLICY CANCELLATION", "C"),
    ]


def test_lettered_recitals_and_list_items_are_not_articles() -> None:
    text = (
        "RECITALS\n\nA. Owner operates a solar energy facility on the premises.\n"
        "B. Owner desires to retain the services of the Provider.\n\n"
        f"1. Services\n{BODY}\n2. Fees\n{BODY}"
    )
    assert cut(text) == [("1. Services", "1"), ("2. Fees", "2")]


def test_numbered_items_inside_lettered_articles_stay_inside_them() -> None:
    items = "".join(f"{n}. The Agency shall report item {n} to MICOA.\n" for n in range(1, 6))
    text = (
        f"AGENCY AGREEMENT\n\nA. AUTHORITY OF AGENCY\n{BODY}\nB. BILLED POLICIES\n{BODY}"
        f"\nC. POTENTIAL OPPORTUNITIES\n{items}"
    )
    assert [ref for _heading, ref in cut(text)] == ["A", "B", "C"]


def test_lettered_sections_inside_a_roman_article_stay_inside_it() -> None:
    # Ten titled sections outweigh four articles: only their place inside one tells.
    titles = ("Indemnity", "Provisions", "Solicitation", "Notices", "Assignments", "Originals",
              "Waiver", "Severability", "Counterparts", "Headings")  # fmt: skip
    lettered = "".join(
        f"{letter}. {title}. {BODY * 4}" for letter, title in zip("ABCDEFGHJK", titles, strict=True)
    )
    text = (
        f"ALLIANCE AGREEMENT\n\nI. SERVICES\n{BODY * 4}\nII. FEES\n{BODY * 4}"
        f"\nIII. TERM\n{BODY * 4}\nIV. MISCELLANEOUS\n{lettered}"
    )
    assert [ref for _heading, ref in cut(text)] == ["1", "2", "3", "4"]


def test_roman_articles_inside_a_long_line_open_articles() -> None:
    text = (
        "Cooperation Agreement   Party A: the County Party B: Xinwei Co., Ltd.   Both parties "
        "reach the following agreement:   I. Party A supports the construction of the project "
        "of Party B and provides all its services.   II. Party A accepts the agreement signed by "
        "Party B and the Town, and coordinates the Town.   III. Party B will promote the use of "
        "solar products and local employment.   IV. Party B promises that the land will not be "
        "changed for the project in the plot.\n"
    )
    assert [ref for _heading, ref in cut(text)] == ["1", "2", "3", "4"]


def test_an_exhibits_own_articles_do_not_replace_the_contracts() -> None:
    exhibit = "".join(f"ARTICLE {n} — Licence term {n}\n{BODY * 3}\n" for n in range(1, 7))
    tables = "".join(f"Table A-{n}: Fees of the year {n}.\n{BODY}" for n in range(1, 12))
    text = (
        f"HOSTING AGREEMENT\n\n1. Services\n{BODY * 3}\n2. Fees\n{BODY * 3}\n3. Term\n{BODY * 3}"
        f"\nEXHIBIT A\n\nSOFTWARE LICENCE\n\n{exhibit}{tables}"
    )
    assert cut(text) == [("1. Services", "1"), ("2. Fees", "2"), ("3. Term", "3"),
                         ("EXHIBIT A", "Exhibit A")]  # fmt: skip


def test_lettered_sections_before_the_numbered_articles_do_not_hold_them() -> None:
    numbered = "".join(f"{n}. Obligation {n}\n{BODY * 3}\n" for n in range(1, 9))
    text = (
        f"OUTSOURCING AGREEMENT\n\nA. DEFINITIONS\n{BODY}\nB. INTERPRETATION\n{BODY}"
        f"\nC. APPENDICES AND SCHEDULES\n{BODY}\n{numbered}"
    )
    assert [ref for _heading, ref in cut(text)] == [str(n) for n in range(1, 9)]


def test_a_title_written_before_its_number_opens_the_article() -> None:
    text = (
        "JOINT VENTURE AGREEMENT between Alpha and Beta.\n\nFormation 1. By this Agreement the "
        "Members enter into a joint venture. 2. The Venture is governed by Florida law. Purpose "
        "3. The exclusive purpose of the Venture will be IT Development. Term 4. The duration of "
        "this Venture will begin on March 1, 2020.\n"
        "Rise Education Group 5. Non-exclusivity\nThe Services are not exclusive.\n"
    )
    assert cut(text)[:4] == [("Formation 1", "1"), ("2", "2"), ("Purpose 3", "3"), ("Term 4", "4")]
    # A running header before a titled article is not that article's title.
    assert ("Rise Education Group 5", "5") not in cut(text)
