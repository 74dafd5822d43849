"""A contract without headings is cut at its paragraphs ("¶ 1", "¶ 2"), a short one is kept
whole, and a contract with headings is never cut at its paragraphs."""

from __future__ import annotations

import io
import re

import docx
import pytest
from django.urls import reverse

from documents.chunking import ChunkDraft, split_into_chunks
from documents.models import Chunk, Document
from documents.parsing import parse_document
from tests.helpers.contracts import ingest_files
from tests.helpers.rooms import Room, login
from workspaces.tenancy import workspace_scope

OPENING = (
    "The undersigned hereby agree that the statement on Schedule 13G with respect to the "
    "common stock of Alpha Inc. is filed on behalf of each of them, and that any amendment "
    "thereto signed by each of them shall be filed on behalf of each of them as well."
)
SECOND = (
    "Each of the undersigned is responsible for the timely filing of the statement and of its "
    "amendments, and for the completeness and accuracy of the information concerning it."
)
WITNESS = (
    "IN WITNESS WHEREOF, the undersigned hereby execute this agreement as of the date written "
    "below, each by its duly authorized officer or general partner."
)
SIGNATURES = (
    "Dated: April 8, 2020\n\nBETA CAPITAL LP\n\nBy: /s/ John Smith Name: John Smith Title: "
    "Chief Financial Officer\n\nGAMMA HOLDINGS LTD\n\nBy: /s/ John Smith Name: John Smith "
    "Title: Chief Financial Officer"
)
JOINT_FILING = (
    f"Exhibit 99.1\n\nJOINT FILING AGREEMENT\n\n{OPENING}\n\n{SECOND}\n\n{WITNESS}\n\n"
    f"{SIGNATURES}\n"
)


def headed(chunks: list[ChunkDraft]) -> list[str]:
    return [chunk.heading for chunk in chunks if chunk.heading]


def test_a_contract_without_headings_is_cut_at_its_clause_paragraphs() -> None:
    chunks = split_into_chunks(JOINT_FILING, [0])
    assert [(c.kind, c.heading, c.article_ref) for c in chunks] == [
        ("preamble", "", ""),
        ("article", "\u00b6 1", ""),
        ("article", "\u00b6 2", ""),
        ("article", "\u00b6 3", ""),
    ]
    # The title stays in the preamble; the signatures go with the last paragraph.
    assert chunks[0].text == "Exhibit 99.1\n\nJOINT FILING AGREEMENT"
    assert chunks[1].text == OPENING
    assert chunks[3].text.startswith(WITNESS) and chunks[3].text.endswith("Financial Officer")


def test_the_paragraph_label_is_the_callers() -> None:
    chunks = split_into_chunks(JOINT_FILING, [0], paragraph_label=lambda n: f"\u00a7 {n}")
    assert headed(chunks) == ["\u00a7 1", "\u00a7 2", "\u00a7 3"]


def test_a_signatorys_name_in_capitals_is_not_the_contracts_only_article() -> None:
    # Read alone, "BETA CAPITAL LP" would be a heading in capitals holding most of the text.
    text = f"JOINT FILING AGREEMENT\n\n{OPENING}\n\n{WITNESS}\n\nBETA CAPITAL LP\n\n{SECOND}\n"
    assert headed(split_into_chunks(text, [0])) == ["\u00b6 1", "\u00b6 2", "\u00b6 3"]


def test_a_title_alone_above_a_later_paragraph_opens_it() -> None:
    text = (
        f"JOINT VENTURE AGREEMENT\n\n{OPENING}\n\nCapital Contributions\n\n{SECOND}\n\n{WITNESS}\n"
    )
    chunks = split_into_chunks(text, [0])
    assert headed(chunks) == ["\u00b6 1", "\u00b6 2", "\u00b6 3"]
    assert chunks[0].text == "JOINT VENTURE AGREEMENT"
    assert chunks[2].text.startswith("Capital Contributions\n\nEach of the undersigned")


def test_a_short_text_or_a_single_paragraph_is_kept_whole() -> None:
    short = f"LETTER AGREEMENT\n\n{OPENING}\n\n{WITNESS}\n"
    assert len(short) < 600
    single = f"{OPENING} {SECOND} {WITNESS} {SIGNATURES.replace(chr(10), ' ')}"
    for text in (short, single):
        chunks = split_into_chunks(text, [0])
        assert [(c.kind, c.heading) for c in chunks] == [("part", "")]


def test_signature_and_notice_blocks_open_no_paragraph() -> None:
    blocks = "\n\n".join(
        f"By: /s/ John Smith Name: John Smith Title: Officer of the general partner {n} of "
        "the fund, acting for and on behalf of the fund and of its general partner"
        for n in range(6)
    )
    text = f"JOINT FILING AGREEMENT\n\n{OPENING}\n\n{blocks}\n"
    chunks = split_into_chunks(text, [0])
    assert headed(chunks) == ["\u00b6 1"]
    assert chunks[1].text.endswith("its general partner")


def test_a_contract_with_headings_is_not_cut_at_its_paragraphs() -> None:
    text = (
        f"SERVICES AGREEMENT\n\n{OPENING}\n\n1. Services\n\n{SECOND}\n\n{WITNESS}\n\n"
        f"2. Fees\n\n{OPENING}\n\n{SECOND}\n"
    )
    assert headed(split_into_chunks(text, [0])) == ["1. Services", "2. Fees"]


def test_exhibits_keep_their_chunk_after_the_paragraphs() -> None:
    text = f"{JOINT_FILING}\nEXHIBIT A\n\nList of the reporting persons and their addresses.\n"
    assert headed(split_into_chunks(text, [0])) == ["\u00b6 1", "\u00b6 2", "\u00b6 3", "EXHIBIT A"]


def test_a_word_processors_paragraphs_one_a_line_are_cut_too() -> None:
    document = docx.Document()
    for paragraph in ("JOINT FILING AGREEMENT", OPENING, SECOND, WITNESS, "BETA CAPITAL LP"):
        document.add_paragraph(paragraph)
    buffer = io.BytesIO()
    document.save(buffer)
    parsed = parse_document("joint.docx", buffer.getvalue())
    chunks = split_into_chunks(parsed.text, parsed.page_starts)
    assert headed(chunks) == ["\u00b6 1", "\u00b6 2", "\u00b6 3"]
    assert chunks[0].text == "JOINT FILING AGREEMENT"


def test_lines_wrapped_at_a_pages_width_are_not_paragraphs() -> None:
    words = f"{OPENING} {SECOND} {WITNESS} {OPENING}".split()
    lines, line = [], ""
    for word in words:  # wrapped at 130 characters, as a wide PDF page is read
        if len(line) + len(word) >= 130:
            lines.append(line)
            line = ""
        line = f"{line} {word}".strip()
    text = "SERVICES LETTER\n" + "\n".join([*lines, line]) + "\n"
    assert len(text) > 600
    assert not [h for h in headed(split_into_chunks(text, [0])) if h.startswith("\u00b6")]


FRENCH_LETTER = (
    "LETTRE D'ACCORD\n\n"
    "La société Alpha s'engage à fournir à la société Beta les prestations de maintenance "
    "décrites dans la présente lettre, pendant une durée de deux ans à compter de la date de "
    "sa signature par les deux parties.\n\n"
    "Le prix des prestations est fixé à dix mille euros par an, payables par trimestre et "
    "d'avance, sur présentation d'une facture de la société Alpha à la société Beta.\n\n"
    "La présente lettre est soumise au droit français et tout différend relatif à son "
    "exécution sera porté devant le tribunal de commerce de Paris.\n\n"
    "Chacune des parties peut mettre fin à la présente lettre par un courrier recommandé "
    "adressé à l'autre partie au moins trois mois avant la fin de chaque année.\n"
)


@pytest.mark.django_db
def test_ingestion_labels_the_paragraphs_in_the_contracts_language(room: Room) -> None:
    ingest_files(room.workspace, {"lettre.txt": FRENCH_LETTER, "joint.txt": JOINT_FILING})
    with workspace_scope(room.workspace):
        chunks = Chunk.objects.filter(document__workspace=room.workspace).exclude(heading="")
        by_file = {
            name: list(chunks.filter(document__filename=name).values_list("heading", flat=True))
            for name in ("lettre.txt", "joint.txt")
        }
        letter = Document.objects.get(workspace=room.workspace, filename="lettre.txt")
    assert by_file == {
        "lettre.txt": ["\u00a7 1", "\u00a7 2", "\u00a7 3", "\u00a7 4"],
        "joint.txt": ["\u00b6 1", "\u00b6 2", "\u00b6 3"],
    }
    # The viewer heads each paragraph with its label, the title under "Préambule".
    url = reverse("document_detail", args=[room.workspace.slug, letter.ref])
    page = login(room.owner).get(url).content.decode()
    assert re.search(r"<h3 id=\"chunk-\d+-title\">\u00a7 2 <span", page)
    assert re.search(r"<h3 id=\"chunk-\d+-title\">Préambule <span", page)


def test_a_long_signature_line_opens_no_paragraph() -> None:
    signature = (
        "/s/ John Smith, acting for and on behalf of the fund and of each of its general "
        "partners, as their duly authorized officer and attorney in fact under the power given"
    )
    text = f"JOINT FILING AGREEMENT\n\n{OPENING}\n\n{SECOND}\n\n{signature}\n\n{WITNESS}\n"
    assert headed(split_into_chunks(text, [0])) == ["\u00b6 1", "\u00b6 2", "\u00b6 3"]
