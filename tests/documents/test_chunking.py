"""Chunking contracts along their articles, and the text that gets indexed for each chunk."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from documents.chunking import ChunkDraft, index_text, split_into_chunks

CUAD_DIR = (
    Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "cuad" / "full_contract_txt"
)

FRENCH_CONTRACT = """CONTRAT DE DISTRIBUTION

Entre la société Alpha SAS et la société Beta SARL, il a été convenu ce qui suit.

ARTICLE PREMIER — OBJET
Le présent contrat organise la distribution des produits Alpha.

Article 2 - Durée
Le contrat est conclu pour trois ans.

ARTICLE 3 — PRIX
3.1 Le prix est fixé en annexe.
3.2 Il est révisé chaque année.

ARTICLE 4 — EXCLUSIVITÉ TERRITORIALE
Le distributeur bénéficie d'une exclusivité sur le territoire de la Savoie, conformément à
Article 3 ci-dessus et sous réserve du respect des objectifs.

Art. 5 : Loi applicable
Le contrat est soumis au droit français.
"""

ENGLISH_CONTRACT = """SERVICES AGREEMENT

This Agreement is made between Gamma Inc. and Delta LLC.

1. Definitions
Capitalised terms have the meaning given below.

2. Services. The Provider shall perform the services described in Exhibit A.
2. The parties agree that the services start on the Effective Date.

3. FEES
The Client pays the fees within thirty days.

12. Governing Law
This Agreement is governed by the laws of New York.
12.1 Venue. The courts of New York County have jurisdiction.
12.3 Notices
Notices are given in writing.
"""


def chunk_refs(chunks: list[ChunkDraft]) -> list[tuple[str, str]]:
    return [(chunk.kind, chunk.article_ref) for chunk in chunks]


def assert_no_text_lost(text: str, chunks: list[ChunkDraft]) -> None:
    covered = [False] * len(text)
    for chunk in chunks:
        assert text[chunk.char_start : chunk.char_end] == chunk.text
        for offset in range(chunk.char_start, chunk.char_end):
            covered[offset] = True
    lost = [
        char for char, seen in zip(text, covered, strict=True) if not seen and not char.isspace()
    ]
    assert lost == []


def test_empty_text_has_no_chunks() -> None:
    assert split_into_chunks("", [0]) == []
    assert split_into_chunks(" \n\n \t", [0]) == []


def test_french_articles_become_one_chunk_each_after_the_preamble() -> None:
    chunks = split_into_chunks(FRENCH_CONTRACT, [0])
    assert chunk_refs(chunks) == [
        ("preamble", ""),
        ("article", "1"),
        ("article", "2"),
        ("article", "3"),
        ("article", "4"),
        ("article", "5"),
    ]
    assert [chunk.ordinal for chunk in chunks] == list(range(6))
    assert chunks[0].heading == ""
    assert chunks[0].text.startswith("CONTRAT DE DISTRIBUTION")
    assert chunks[1].heading == "ARTICLE PREMIER — OBJET"
    assert chunks[2].heading == "Article 2 - Durée"
    assert chunks[4].heading == "ARTICLE 4 — EXCLUSIVITÉ TERRITORIALE"
    assert chunks[5].heading == "Art. 5 : Loi applicable"
    assert chunks[4].text.startswith("ARTICLE 4 — EXCLUSIVITÉ TERRITORIALE\nLe distributeur")


def test_article_cross_reference_at_a_line_start_is_not_a_heading() -> None:
    chunks = split_into_chunks(FRENCH_CONTRACT, [0])
    assert "Article 3 ci-dessus" in chunks[4].text


def test_sub_sections_stay_inside_their_article() -> None:
    chunks = split_into_chunks(FRENCH_CONTRACT, [0])
    assert "3.1 Le prix" in chunks[3].text and "3.2 Il est" in chunks[3].text


@pytest.mark.parametrize(
    ("line", "heading", "ref"),
    [
        ("ARTICLE 4 — EXCLUSIVITÉ", "ARTICLE 4 — EXCLUSIVITÉ", "4"),
        ("Article 1er", "Article 1er", "1"),
        ("Article 1er - Objet", "Article 1er - Objet", "1"),
        ("ARTICLE PREMIER", "ARTICLE PREMIER", "1"),
        ("ARTICLE II", "ARTICLE II", "2"),
        ("ARTICLE XIV — DIVERS", "ARTICLE XIV — DIVERS", "14"),
        ("Art. 5", "Art. 5", "5"),
        ("Section 2.3 Term", "Section 2.3 Term", "2.3"),
        ("SECTION 2.3 — TERM", "SECTION 2.3 — TERM", "2.3"),
        ("12. Governing Law", "12. Governing Law", "12"),
        ("12.3 Notices", "12.3 Notices", "12.3"),
        ("IV. CONFIDENTIALITY", "IV. CONFIDENTIALITY", "4"),
        ("7. Durée du contrat", "7. Durée du contrat", "7"),
        ("1. Services. The Consultant shall advise the Company.", "1. Services", "1"),
        ("  Clause 9: Force Majeure", "Clause 9: Force Majeure", "9"),
    ],
)
def test_heading_patterns_are_recognised(line: str, heading: str, ref: str) -> None:
    text = f"Preamble text.\n\n{line}\nBody of the clause.\n"
    chunks = split_into_chunks(text, [0])
    assert [(c.kind, c.heading, c.article_ref) for c in chunks[1:]] == [("article", heading, ref)]


@pytest.mark.parametrize(
    "line",
    [
        "2. The parties agree that the price is firm.",
        "2. The parties agree that the Supplier",
        "3. Le prix est ferme.",
        "Article 5 of this Agreement applies to all orders.",
        "Section 4 shall survive termination.",
        "1.5 million euros are due on signature.",
        "2024 was a good year.",
        "Article L. 233-3 du Code de commerce s'applique.",
        "Article 1 — Objet .......... 3",
    ],
)
def test_sentences_and_references_are_not_headings(line: str) -> None:
    text = f"Opening words of the agreement.\n{line}\nMore words.\n"
    chunks = split_into_chunks(text, [0])
    assert [(c.kind, c.heading) for c in chunks] == [("part", "")]


def test_english_numbered_headings_chunk_by_top_level_number() -> None:
    chunks = split_into_chunks(ENGLISH_CONTRACT, [0])
    assert chunk_refs(chunks) == [
        ("preamble", ""),
        ("article", "1"),
        ("article", "2"),
        ("article", "3"),
        ("article", "12"),
    ]
    assert [c.heading for c in chunks[1:]] == [
        "1. Definitions",
        "2. Services",
        "3. FEES",
        "12. Governing Law",
    ]
    assert "2. The parties agree" in chunks[2].text
    assert "12.1 Venue" in chunks[4].text and "12.3 Notices" in chunks[4].text


def test_numbered_list_inside_an_article_starts_no_chunk() -> None:
    text = (
        "1. Scope\nThe Supplier delivers:\n1. Hardware\n2. Software\n\n"
        "2. Price\nThe price is fixed.\n3. Term\nOne year.\n"
    )
    chunks = split_into_chunks(text, [0])
    assert [c.heading for c in chunks] == ["1. Scope", "2. Price", "3. Term"]
    assert "1. Hardware\n2. Software" in chunks[0].text


def test_keyword_headings_outrank_numbered_ones() -> None:
    text = (
        "ARTICLE I DEFINITIONS\n1.1 Affiliate. Any controlled entity.\n"
        "1.2 Products. The goods listed.\nARTICLE II TERM\n2.1 Initial Term. Two years.\n"
    )
    chunks = split_into_chunks(text, [0])
    assert chunk_refs(chunks) == [("article", "1"), ("article", "2")]


def test_bare_article_line_takes_its_title_from_the_next_line() -> None:
    text = (
        "ARTICLE 4\nEXCLUSIVITÉ\nLe distributeur est exclusif.\n\nARTICLE 5\nLe prix est ferme.\n"
    )
    chunks = split_into_chunks(text, [0])
    assert [c.heading for c in chunks] == ["ARTICLE 4 — EXCLUSIVITÉ", "ARTICLE 5"]


def test_long_article_is_split_at_sub_sections_first() -> None:
    body = "\n".join(
        f"7.{n} Clause {n}. " + f"Sentence number {n} of the obligations. " * 12
        for n in range(1, 7)
    )
    text = (
        f"ARTICLE 6 — SHORT\nNothing.\n\nARTICLE 7 — OBLIGATIONS\n{body}\n\nARTICLE 8 — END\nDone."
    )
    chunks = split_into_chunks(text, [0], max_chars=1200, overlap_chars=100)
    parts = [c for c in chunks if c.article_ref == "7"]
    assert len(parts) > 1
    assert all(c.kind == "part" and c.heading == "ARTICLE 7 — OBLIGATIONS" for c in parts)
    assert parts[0].text.startswith("ARTICLE 7 — OBLIGATIONS")
    # Sub-section cuts need no overlap: each later part starts on a sub-heading.
    assert all(c.text.startswith("7.") for c in parts[1:])
    assert all(len(c.text) <= 1200 for c in chunks)
    assert [c.kind for c in chunks if c.article_ref in ("6", "8")] == ["article", "article"]
    assert_no_text_lost(text, chunks)


def test_long_article_without_sub_sections_is_split_at_paragraphs_with_overlap() -> None:
    paragraphs = [
        f"Paragraph {n} says something about liability and its limits." * 4 for n in range(8)
    ]
    text = "Article 9 — Liability\n" + "\n\n".join(paragraphs)
    chunks = split_into_chunks(text, [0], max_chars=700, overlap_chars=80)
    assert len(chunks) > 2
    assert {(c.kind, c.article_ref) for c in chunks} == {("part", "9")}
    for previous, current in itertools.pairwise(chunks):
        assert current.char_start < previous.char_end  # overlap
        assert previous.char_end - current.char_start <= 80
        assert current.text[0].isalnum()  # overlap starts on a word, not mid-word
    assert all(len(c.text) <= 700 for c in chunks)
    assert_no_text_lost(text, chunks)


def test_text_without_headings_is_split_into_parts() -> None:
    text = "\n".join(f"Line {n}: the lessee keeps the premises in good repair." for n in range(100))
    chunks = split_into_chunks(text, [0], max_chars=500, overlap_chars=50)
    assert len(chunks) > 5
    assert {(c.kind, c.heading, c.article_ref) for c in chunks} == {("part", "", "")}
    assert all(len(c.text) <= 500 for c in chunks)
    assert_no_text_lost(text, chunks)


def test_unbroken_text_is_hard_cut_without_losing_characters() -> None:
    text = "x" * 1000 + " " + "y" * 50
    chunks = split_into_chunks(text, [0], max_chars=300, overlap_chars=20)
    assert all(len(c.text) <= 300 for c in chunks)
    assert_no_text_lost(text, chunks)


@pytest.mark.parametrize("max_chars", [80, 200, 2400])
@pytest.mark.parametrize("text", [FRENCH_CONTRACT, ENGLISH_CONTRACT])
def test_no_text_is_lost_whatever_the_chunk_size(text: str, max_chars: int) -> None:
    chunks = split_into_chunks(text, [0], max_chars=max_chars, overlap_chars=max_chars // 5)
    assert all(len(c.text) <= max_chars for c in chunks)
    assert_no_text_lost(text, chunks)


def test_chunks_carry_their_pages() -> None:
    pages = ["Preamble on page one.", "ARTICLE 1 — OBJET\nStarts on page two", "and ends on three."]
    text = "\n\n".join(pages)
    starts = [0, len(pages[0]) + 2, len(pages[0]) + len(pages[1]) + 4]
    preamble, article = split_into_chunks(text, starts)
    assert (preamble.page_start, preamble.page_end) == (1, 1)
    assert (article.page_start, article.page_end) == (2, 3)


def test_invalid_limits_are_refused() -> None:
    with pytest.raises(ValueError, match="overlap"):
        split_into_chunks("text", [0], max_chars=100, overlap_chars=100)


def test_index_text_prefixes_document_context() -> None:
    chunk = split_into_chunks(FRENCH_CONTRACT, [0])[2]
    indexed = index_text(
        chunk,
        title="Contrat de distribution Alpha / Beta",
        parties=["Alpha SAS", "Beta SARL"],
        contract_type="distribution",
    )
    assert indexed.startswith(
        "Contrat de distribution Alpha / Beta — distribution\nParties: Alpha SAS; Beta SARL\n\n"
    )
    assert indexed.endswith(chunk.text)


def test_index_text_repeats_the_heading_for_later_parts() -> None:
    text = "Article 9 — Liability\n" + "\n\n".join(["Words about limits. " * 20] * 4)
    later_part = split_into_chunks(text, [0], max_chars=500, overlap_chars=0)[1]
    indexed = index_text(later_part, title="", parties=[], contract_type="")
    assert indexed.startswith("Article 9 — Liability\n\n")


def test_real_cuad_contracts_are_chunked_by_heading_without_losing_text() -> None:
    if not CUAD_DIR.is_dir():
        pytest.skip("CUAD sample contracts are not available")
    names = [
        "ADUROBIOTECH,INC_06_02_2020-EX-10.7-CONSULTING AGREEMENT.txt",
        "ACCURAYINC_09_01_2010-EX-10.31-DISTRIBUTOR AGREEMENT.txt",
        "ABILITYINC_06_15_2020-EX-4.25-SERVICES AGREEMENT.txt",
    ]
    paths = [CUAD_DIR / name for name in names if (CUAD_DIR / name).is_file()]
    if not paths:
        pytest.skip("the chosen CUAD contracts are not available")
    for path in paths:
        text = path.read_text(encoding="utf-8", errors="replace")
        chunks = split_into_chunks(text, [0])
        assert len(chunks) > 1, path.name
        assert any(c.heading for c in chunks), path.name
        assert all(len(c.text) <= 2400 for c in chunks), path.name
        assert_no_text_lost(text, chunks)


def test_bare_article_line_does_not_take_a_sentence_as_its_title() -> None:
    text = "ARTICLE 5\nLe Prestataire s'engage à livrer les produits\nen bon état.\n"
    assert [c.heading for c in split_into_chunks(text, [0])] == ["ARTICLE 5"]
