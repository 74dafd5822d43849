"""Metadata read from the text of an uploaded contract (no data-room fields): values, their
provenance (quote, article, page, confidence), partial and perpetual dates in filters, bad
input, contradictions with the data room, and the fallback reader's quote check."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.utils import translation
from fpdf import FPDF

from agents.tools import call_tool
from documents.extraction import Finding, PartialDate
from documents.models import Document
from tests.helpers.contracts import ingest_command, ingest_entries
from tests.helpers.rooms import Room, login
from workspaces.tenancy import workspace_scope

pytestmark = pytest.mark.django_db

# Written for these tests: a French services contract whose signature block is on page 2.
FRENCH_PAGE_1 = (
    "CONTRAT DE PRESTATION DE SERVICES\n\n"
    "Entre les soussignés :\n"
    "La société Quorvia SAS, au capital de 10 000 euros, immatriculée au RCS de Lyon sous le "
    "numéro 552 100 554, ci-après dénommée « le Client »,\n"
    "Et\n"
    "La société Atelier Corvel SARL, immatriculée au RCS d'Annecy sous le numéro 330 660 839, "
    "ci-après dénommée « le Prestataire ».\n\n"
    "ARTICLE 1 - OBJET\nLe Prestataire assure la maintenance du parc informatique du Client.\n\n"
    "ARTICLE 2 - DURÉE\nLe présent contrat est conclu pour une durée de trois ans à compter de "
    "sa signature. Il se renouvelle ensuite par tacite reconduction pour des périodes "
    "successives d'un an, sauf dénonciation par lettre recommandée avec un préavis de trois "
    "mois.\n"
)
FRENCH_PAGE_2 = (
    "ARTICLE 3 - DROIT APPLICABLE\nLe présent contrat est soumis au droit français.\n\n"
    "Fait à Lyon, le 12 mars 2023, en deux exemplaires.\n"
)


def french_pdf(path: Path) -> Path:
    pdf = FPDF(format="A4")
    pdf.add_font("DejaVu", fname="/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
    pdf.set_font("DejaVu", size=10)
    for page in (FRENCH_PAGE_1, FRENCH_PAGE_2):
        pdf.add_page()
        pdf.multi_cell(w=0, text=page)
    path.write_bytes(bytes(pdf.output()))
    return path


def _document(room: Room, ref: str = "c01") -> Document:
    with workspace_scope(room.workspace):
        return Document.objects.prefetch_related("parties__entity").get(ref=ref)


def _tool(room: Room, name: str, **arguments: object) -> dict:
    with translation.override("en"):
        return call_tool(
            name=name, arguments={"workspace": "deal-alpha", **arguments}, user=room.viewer
        ).content


@pytest.fixture
def french_upload(room: Room, tmp_path: Path) -> Room:
    ingest_command(french_pdf(tmp_path / "prestation.pdf"))
    return room


def test_french_pdf_keeps_its_signature_date_type_parties_and_siren(french_upload: Room):
    document = _document(french_upload)
    assert document.signature_date.isoformat() == "2023-03-12"
    assert document.signature_precision == "day"
    assert document.contract_type == "services"
    assert document.governing_law == "droit français"
    parties = {p.entity.name: p for p in document.parties.all()}
    assert set(parties) == {"Quorvia SAS", "Atelier Corvel SARL"}
    assert parties["Quorvia SAS"].entity.siren == "552100554"
    assert parties["Quorvia SAS"].role == "client"
    assert parties["Atelier Corvel SARL"].role == "service_provider"
    assert document.renewal["automatic"] is True
    assert document.renewal["term_months"] == 12
    kinds = {(item["kind"], item["number"], item["valid"]) for item in document.identifiers}
    assert ("rcs", "552100554", True) in kinds


def test_get_contract_cites_the_signature_block_with_its_page_and_article(french_upload: Room):
    contract = _tool(french_upload, "get_contract", contract_id="c01")
    signed = next(p for p in contract["provenance"] if p["field"] == "signature_date")
    assert signed["value"] == "2023-03-12"
    assert signed["source"] == "text"
    assert "Fait à Lyon" in signed["quote"]
    assert signed["page"] == 2
    assert signed["chunk_id"] in {a["chunk_id"] for a in contract["articles"]}
    assert 0 < signed["confidence"] <= 1
    law = next(p for p in contract["provenance"] if p["field"] == "governing_law")
    assert law["article_ref"] and law["confidence_label"] in {"certain", "probable"}


def test_viewer_shows_the_quote_its_source_and_a_link_to_the_article(french_upload: Room):
    client = login(french_upload.viewer)
    page = client.get("/w/deal-alpha/documents/c01/")
    html = page.content.decode()
    assert page.status_code == 200
    # The signature row: the quote, "d'après le texte" and its confidence, its article.
    row = html[html.index("Date de signature") :]
    row = row[: row.index("</tr>")]
    assert "Fait à Lyon, le 12 mars 2023" in row
    assert "d'après le texte" in row and "certain" in row
    assert "?article=" in row and "p. 2" in row
    assert 'id="identifiers"' in html and "552100554" in html


# --- partial and perpetual dates in filters -----------------------------------------------

YEAR_ONLY = {
    "filename": "licence_2004.txt",
    "content": (
        "LICENSE AGREEMENT\n\nThis License Agreement is made as of the ___ day of ________, "
        '2004, by and between Alpha Corp., a Delaware corporation ("Licensor"), and Beta '
        'LLC, a New York limited liability company ("Licensee").\n\n1. Grant\nLicensor '
        "grants Licensee a licence to use the Software.\n\n2. Term\nThis Agreement shall "
        "continue in full force and effect until terminated by either party.\n"
    ),
}
EXACT = {
    "filename": "supply_2009.txt",
    "content": (
        "SUPPLY AGREEMENT\n\nThis Supply Agreement is dated as of March 3, 2009, by and "
        'between Gamma Inc. ("Supplier") and Delta Ltd. ("Buyer").\n\n1. Term\nThis '
        "Agreement shall expire on December 31, 2012.\n"
    ),
}


def test_a_year_only_signature_passes_a_bound_after_its_year(room: Room):
    ingest_entries(room.workspace, YEAR_ONLY, EXACT)
    body = _tool(room, "search_data_room", filters={"signature_date": {"before": "2010-01-01"}})
    assert sorted(r["contract_id"] for r in body["results"]) == ["c01", "c02"]
    year_only = next(r for r in body["results"] if r["contract_id"] == "c01")
    assert year_only["signature_date"] is None
    assert year_only["signature_date_as_known"] == "2004"
    assert body["excluded_unknown"] == []


def test_a_year_only_signature_is_undecided_against_a_bound_inside_its_year(room: Room):
    ingest_entries(room.workspace, YEAR_ONLY, EXACT)
    body = _tool(room, "search_data_room", filters={"signature_date": {"before": "2004-06-30"}})
    assert body["results"] == []
    assert body["excluded_unknown"] == [
        {
            "contract_id": "c01",
            "title": "LICENSE AGREEMENT",  # the title line of its text
            "unknown_fields": ["signature_date"],
            "reasons": {"signature_date": "date known only to the year"},
        }
    ]


def test_a_perpetual_contract_is_excluded_from_end_date_filters_with_that_reason(room: Room):
    ingest_entries(room.workspace, YEAR_ONLY, EXACT)
    document = _document(room)
    assert (document.end_date_kind, document.end_date) == ("perpetual", None)
    body = _tool(room, "search_data_room", filters={"end_date": {"after": "2000-01-01"}})
    assert [r["contract_id"] for r in body["results"]] == ["c02"]
    assert body["excluded_unknown"][0]["reasons"] == {
        "end_date": "no end date: runs until terminated"
    }
    described = _tool(room, "describe_data_room")
    assert described["unknown"]["end_date_perpetual"] == 1
    assert described["unknown"]["end_date"] == 0  # perpetual is not unknown
    assert described["unknown"]["signature_date_partial"] == 1


# --- bad input --------------------------------------------------------------------------------


def test_a_date_that_does_not_exist_is_unknown_with_its_reason(room: Room):
    ingest_entries(
        room.workspace,
        {
            "filename": "bad_date.txt",
            "content": "CONTRAT DE FOURNITURE\n\nFait à Paris, le 31/02/2024.\n",
        },
    )
    document = _document(room)
    assert document.signature_date is None and document.signature_earliest is None
    record = document.provenance["signature_date"]
    assert record["value"] is None and record["reason"] in {"impossible_date", "not_found"}


def test_a_two_digit_year_is_never_shown_as_certain(room: Room):
    ingest_entries(
        room.workspace,
        {"filename": "short.txt", "content": "CONTRAT DE PRÊT\n\nFait à Paris, le 12/03/23.\n"},
    )
    record = _document(room).provenance["signature_date"]
    if record["value"] is not None:
        assert record["confidence"] < 0.85


def test_a_contract_without_preamble_or_dates_reads_as_unknown_without_error(room: Room):
    ingest_entries(
        room.workspace, {"filename": "notes.txt", "content": "Quelques notes sans date ni parties."}
    )
    document = _document(room)
    assert document.status != "failed"
    for field in ("signature_date", "end_date", "contract_type", "governing_law"):
        assert document.provenance[field]["value"] is None, field
        assert document.provenance[field]["reason"], field


def test_data_room_and_text_disagreeing_on_the_signature_raise_a_warning(room: Room):
    ingest_entries(
        room.workspace,
        {
            "filename": "desaccord.txt",
            "signature_date": "2022-01-10",
            "content": "CONTRAT DE PRESTATION DE SERVICES\n\nFait à Paris, le 3 février 2021.\n",
        },
    )
    document = _document(room)
    assert document.signature_date.isoformat() == "2022-01-10"
    assert document.provenance["signature_date"]["source"] == "metadata"
    assert any("2021-02-03" in warning for warning in document.warnings)


# --- the fallback reader ------------------------------------------------------------------


def quoting_fallback(text: str, missing: list[str]) -> dict[str, object]:
    """A stand-in for a slower reader: one answer quoting the text, and answers a model could
    make up: an invented quote, a date its quote does not state, malformed answers."""
    return {
        "governing_law": Finding("droit suisse", "Les parties choisissent Genève.", "test"),
        "contract_type": Finding(object(), "a title that is not in the text", "test"),
        "agreement_date": Finding(PartialDate(1999, 1, 1), "Les parties   choisissent", "test"),
        "effective_date": None,
        "renewal": "automatic",
    }


def test_fallback_answers_are_kept_only_when_their_quote_is_in_the_text(room: Room, settings):
    settings.LEXROOM_METADATA_FALLBACK = f"{__name__}.quoting_fallback"
    ingest_entries(
        room.workspace,
        {"filename": "geneve.txt", "content": "Note.\n\nLes parties   choisissent Genève.\n"},
    )
    document = _document(room)
    assert document.governing_law == "droit suisse"
    record = document.provenance["governing_law"]
    assert record["rule"] == "fallback:test" and record["confidence"] <= 0.7
    assert document.provenance["contract_type"]["value"] is None
    assert document.provenance["signature_date"]["value"] is None
    assert document.provenance["effective_date"]["value"] is None
    assert document.renewal == {}


# --- vocabularies ---------------------------------------------------------------------------


def test_every_role_and_contract_type_has_a_name_in_both_languages():
    from documents.extraction import CONTRACT_TYPES, ROLES
    from documents.provenance import ROLE_WORDS, contract_type_label, role_label

    assert set(ROLES.values()) <= set(ROLE_WORDS)
    with translation.override("fr"):
        assert role_label("lessee") == "preneur"
    with translation.override("en"):
        assert role_label("lessee") == "lessee"
    for entry in CONTRACT_TYPES:
        with translation.override("en"):
            assert contract_type_label(entry.key) == entry.en


def test_a_family_filter_selects_its_members(room: Room):
    ingest_entries(
        room.workspace,
        {"filename": "bail.txt", "contract_type": "bail commercial", "content": "BAIL COMMERCIAL"},
        {"filename": "nda.txt", "contract_type": "accord de confidentialité", "content": "NDA"},
    )
    body = _tool(room, "search_data_room", filters={"contract_types": ["lease"]})
    assert [r["contract_id"] for r in body["results"]] == ["c01"]
    assert body["results"][0]["contract_type"] == "commercial_lease"
    assert body["results"][0]["contract_type_title"] == "bail commercial"


def test_a_hostile_quote_is_shown_as_text_in_the_viewer(room: Room):
    ingest_entries(
        room.workspace,
        {
            "filename": "hostile.txt",
            "content": "SUPPLY AGREEMENT\n\nThis Supply Agreement <script>alert(1)</script> is "
            "dated as of March 3, 2009, by and between Gamma Inc. and Delta Ltd.\n",
        },
    )
    html = login(room.viewer).get("/w/deal-alpha/documents/c01/").content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert(1)</script>" not in html


def test_a_term_from_the_signature_counts_from_the_data_rooms_signature_date(room: Room):
    ingest_entries(
        room.workspace,
        {
            "filename": "sous_traitance.txt",
            "signature_date": "12/09/2025",
            "content": "CONTRAT DE SOUS-TRAITANCE\n\nARTICLE 4 — DURÉE\n"
            "Le contrat est conclu pour une durée de deux ans à compter de sa signature.\n",
        },
    )
    document = _document(room)
    assert document.end_date.isoformat() == "2027-09-11"
    assert document.provenance["end_date"]["source"] == "text"


def test_a_siren_written_after_another_partys_name_is_not_attached_to_the_first(room: Room):
    ingest_entries(
        room.workspace,
        {
            "filename": "sirens.txt",
            "content": "CONTRAT DE PRESTATION DE SERVICES\n\nEntre la société Quorvia SAS, "
            "ci-après « le Client », et la société Brenalis SARL, ci-après « le Prestataire ». "
            "Quorvia est immatriculée au RCS de Lyon sous le numéro 552 100 554.\n",
        },
    )
    parties = {p.name_as_written: p.siren_as_written for p in _document(room).parties.all()}
    assert parties == {"Quorvia SAS": "552100554", "Brenalis SARL": ""}


def test_a_data_room_date_with_a_two_digit_year_is_only_probable(room: Room):
    ingest_entries(
        room.workspace,
        {"filename": "court.txt", "signature_date": "03/05/04", "content": "CONTRAT"},
    )
    document = _document(room)
    assert document.signature_date.isoformat() == "2004-05-03"
    assert document.provenance["signature_date"]["confidence"] < 0.85
    assert any("03/05/04" in warning for warning in document.warnings)
