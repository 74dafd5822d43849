"""Parsing uploaded bytes: type detection, PDF/DOCX/HTML/text extraction, safe ZIP expansion."""

from __future__ import annotations

import io
import tracemalloc
import zipfile

import docx
import pytest
from django.utils import translation
from docx.enum.text import WD_BREAK
from docx.oxml import OxmlElement
from fpdf import FPDF
from pypdf import PdfReader, PdfWriter

from documents.parsing import (
    SUPPORTED_EXTENSIONS,
    ParseError,
    detect_type,
    iter_zip_members,
    parse_document,
)

MIB = 1 << 20


@pytest.fixture(autouse=True)
def _english():
    # Refusals speak the active language (French by default); checked in English below.
    with translation.override("en"):
        yield


def make_pdf(*pages: str) -> bytes:
    """One PDF page per argument; an empty string makes a page with a drawing but no text."""
    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    for text in pages:
        pdf.add_page()
        if text:
            pdf.multi_cell(w=0, text=text)
        else:
            pdf.rect(20, 20, 100, 60, style="F")  # what a scanned page looks like: no text
    return bytes(pdf.output())


def encrypt_pdf(data: bytes, *, user_password: str) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=user_password, owner_password="owner-secret")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def make_docx(*blocks: str | list[list[str]], page_break_after: int | None = None) -> bytes:
    """Paragraphs (str) and tables (list of rows), with an optional page break after block N."""
    document = docx.Document()
    for index, block in enumerate(blocks):
        if isinstance(block, str):
            paragraph = document.add_paragraph(block)
            if index == page_break_after:
                paragraph.add_run().add_break(WD_BREAK.PAGE)
        else:
            table = document.add_table(rows=len(block), cols=len(block[0]))
            for row, values in zip(table.rows, block, strict=True):
                for cell, value in zip(row.cells, values, strict=True):
                    cell.text = value
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def make_zip(members: dict[str, bytes], *, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as archive:
        for name, content in members.items():
            # ZipInfo keeps the name verbatim, traversal and all: that is what attackers send.
            archive.writestr(zipfile.ZipInfo(name), content, compress_type=compression)
    return out.getvalue()


def make_zeros_zip(name: str, size: int) -> bytes:
    """A ZIP with one highly compressible member, written in chunks to keep memory flat."""
    out = io.BytesIO()
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(out, "w") as archive:
        with archive.open(info, "w") as member:
            chunk = bytes(MIB)
            for _ in range(size // MIB):
                member.write(chunk)
    return out.getvalue()


def errors_by_path(members: list[tuple[str, bytes | ParseError]]) -> dict[str, str]:
    return {path: item.code for path, item in members if isinstance(item, ParseError)}


# --- detect_type ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("filename", "data", "expected"),
    [
        ("contract.pdf", make_pdf("Hello"), "pdf"),
        ("contract.docx", make_docx("Hello"), "docx"),
        ("room.zip", make_zip({"a.txt": b"hello"}), "zip"),
        ("notes.txt", b"plain notes", "txt"),
        ("README.md", b"# Title\n\ntext", "md"),
        ("page.html", b"<html><body><p>x</p></body></html>", "html"),
        ("page.HTM", b"<p>x</p>", "html"),
        ("room.json", b'  {"documents": []}', "json"),
    ],
)
def test_detect_type_recognises_each_supported_format(
    filename: str, data: bytes, expected: str
) -> None:
    assert detect_type(filename, data) == expected


def test_pdf_header_after_bom_and_blank_lines_is_detected() -> None:
    assert detect_type("scan.pdf", b"\xef\xbb\xbf\r\n\n  " + make_pdf("Hello")) == "pdf"


def test_empty_zip_is_a_zip() -> None:
    assert detect_type("empty.zip", make_zip({})) == "zip"


def test_pdf_extension_on_zip_content_is_a_type_mismatch() -> None:
    with pytest.raises(ParseError) as caught:
        detect_type("contract.pdf", make_zip({"a.txt": b"x"}))
    assert caught.value.code == "type_mismatch"
    assert str(caught.value) == "contract.pdf: extension says PDF but the content is ZIP"


def test_pdf_extension_on_plain_text_is_a_type_mismatch() -> None:
    with pytest.raises(ParseError) as caught:
        detect_type("contract.pdf", b"just some text")
    assert caught.value.code == "type_mismatch"
    assert "extension says PDF but the content is text" in caught.value.message


def test_txt_extension_on_pdf_content_is_a_type_mismatch() -> None:
    with pytest.raises(ParseError) as caught:
        detect_type("notes.txt", make_pdf("Hello"))
    assert caught.value.code == "type_mismatch"
    assert "content is PDF" in caught.value.message


def test_docx_extension_on_a_plain_zip_is_a_type_mismatch() -> None:
    with pytest.raises(ParseError) as caught:
        detect_type("contract.docx", make_zip({"a.txt": b"x"}))
    assert caught.value.code == "type_mismatch"


def test_text_extension_on_binary_content_is_a_type_mismatch() -> None:
    with pytest.raises(ParseError) as caught:
        detect_type("notes.md", b"abc\x00def")
    assert caught.value.code == "type_mismatch"
    assert "binary" in caught.value.message


def test_json_extension_on_prose_is_a_type_mismatch() -> None:
    with pytest.raises(ParseError) as caught:
        detect_type("room.json", b"not json at all")
    assert caught.value.code == "type_mismatch"


def test_unknown_extension_is_unsupported_and_lists_what_is() -> None:
    with pytest.raises(ParseError) as caught:
        detect_type("old.doc", b"\xd0\xcf\x11\xe0")
    assert caught.value.code == "unsupported"
    assert all(extension in caught.value.message for extension in SUPPORTED_EXTENSIONS)


def test_empty_file_is_refused() -> None:
    with pytest.raises(ParseError) as caught:
        detect_type("contract.pdf", b"")
    assert caught.value.code == "empty"


# --- parse_document: PDF -------------------------------------------------------------------


def test_pdf_pages_are_numbered() -> None:
    parsed = parse_document("c.pdf", make_pdf("First page text", "Second page text", "Third"))
    assert parsed.media_type == "pdf"
    assert not parsed.needs_ocr
    assert len(parsed.page_starts) == 3
    assert parsed.page_starts[0] == 0
    assert parsed.text[parsed.page_starts[1] :].startswith("Second page text")
    assert parsed.text[parsed.page_starts[2] :].startswith("Third")
    assert "\n\nSecond page text" in parsed.text


def test_pdf_without_a_text_layer_needs_ocr_and_is_not_an_error() -> None:
    parsed = parse_document("scan.pdf", make_pdf("", ""))
    assert parsed.needs_ocr
    assert parsed.text == ""
    assert parsed.page_starts == [0, 0]


def test_password_protected_pdf_is_refused_as_encrypted() -> None:
    data = encrypt_pdf(make_pdf("Secret terms"), user_password="letmein")
    with pytest.raises(ParseError) as caught:
        parse_document("locked.pdf", data)
    assert caught.value.code == "encrypted"


def test_pdf_encrypted_with_an_empty_user_password_is_read() -> None:
    data = encrypt_pdf(make_pdf("Owner-locked but readable"), user_password="")
    assert "Owner-locked but readable" in parse_document("c.pdf", data).text


def test_truncated_pdf_is_corrupt() -> None:
    data = make_pdf("Some text")
    with pytest.raises(ParseError) as caught:
        parse_document("broken.pdf", data[:200])
    assert caught.value.code == "corrupt"


def test_pdf_with_garbage_after_the_header_is_corrupt() -> None:
    with pytest.raises(ParseError) as caught:
        parse_document("broken.pdf", b"%PDF-1.7\n" + bytes(range(256)) * 20)
    assert caught.value.code == "corrupt"


# --- parse_document: DOCX, HTML, text ------------------------------------------------------


def test_docx_page_break_starts_a_new_page() -> None:
    data = make_docx(
        "ARTICLE 1 — OBJET", "Le contrat a pour objet.", "ARTICLE 2", page_break_after=1
    )
    parsed = parse_document("c.docx", data)
    assert parsed.media_type == "docx"
    assert len(parsed.page_starts) == 2
    assert parsed.text[: parsed.page_starts[1]].strip().endswith("Le contrat a pour objet.")
    assert parsed.text[parsed.page_starts[1] :] == "ARTICLE 2"


def test_docx_without_page_breaks_is_one_page() -> None:
    parsed = parse_document("c.docx", make_docx("One", "Two"))
    assert parsed.page_starts == [0]
    assert parsed.text == "One\nTwo"


def test_docx_tables_are_read_row_by_row_in_document_order() -> None:
    data = make_docx("Before", [["Party", "Role"], ["Alpha SAS", "Seller"]], "After")
    parsed = parse_document("c.docx", data)
    assert parsed.text == "Before\nParty | Role\nAlpha SAS | Seller\nAfter"


def test_docx_that_is_not_a_word_package_is_corrupt() -> None:
    data = make_zip({"word/document.xml": b"<not-xml"})
    with pytest.raises(ParseError) as caught:
        parse_document("c.docx", data)
    assert caught.value.code == "corrupt"


def test_html_keeps_headings_on_their_own_line_and_drops_scripts() -> None:
    html = (
        b"<html><head><title>T</title><style>p{color:red}</style></head><body>"
        b"<h1>ARTICLE 1 &mdash; OBJET</h1><p>Le   contrat\n porte sur&nbsp;la vente.</p>"
        b"<script>alert('x')</script><ul><li>un</li><li>deux</li></ul>"
        b"<table><tr><td>A</td><td>B</td></tr></table>ligne<br>suivante</body></html>"
    )
    parsed = parse_document("c.html", html)
    lines = parsed.text.split("\n")
    assert lines[0] == "ARTICLE 1 — OBJET"
    assert "Le contrat porte sur la vente." in lines
    assert "un" in lines and "deux" in lines
    assert "A | B" in lines
    assert "suivante" in lines
    assert "alert" not in parsed.text and "color" not in parsed.text


def test_form_feed_starts_a_new_page_in_plain_text() -> None:
    parsed = parse_document("c.txt", b"Page one\r\nline two\fPage two")
    assert parsed.text == "Page one\nline two\n\nPage two"
    assert parsed.page_starts == [0, parsed.text.index("Page two")]


def test_plain_text_blank_line_runs_are_collapsed() -> None:
    parsed = parse_document("c.md", b"# Title   \n\n\n\n\nBody\r\rEnd")
    assert parsed.text == "# Title\n\nBody\n\nEnd"
    assert parsed.media_type == "md"


def test_windows_1252_text_file_is_decoded() -> None:
    parsed = parse_document("c.txt", "Durée — résiliation".encode("cp1252"))
    assert parsed.text == "Durée — résiliation"


def test_whitespace_only_text_file_is_empty() -> None:
    with pytest.raises(ParseError) as caught:
        parse_document("c.txt", b"  \n\n \t")
    assert caught.value.code == "empty"


@pytest.mark.parametrize(
    ("filename", "data"), [("room.json", b"[]"), ("room.zip", make_zip({"a.txt": b"x"}))]
)
def test_json_and_zip_are_not_parsed_as_documents(filename: str, data: bytes) -> None:
    with pytest.raises(ParseError) as caught:
        parse_document(filename, data)
    assert caught.value.code == "unsupported"
    assert "archive expansion" in caught.value.message


# --- iter_zip_members ----------------------------------------------------------------------


def test_zip_members_come_back_with_their_paths_and_junk_is_skipped() -> None:
    data = make_zip(
        {
            "room/": b"",
            "room/a.txt": b"alpha",
            "room/sub/b.pdf": b"%PDF-1.4",
            "__MACOSX/room/._a.txt": b"junk",
            "room/.DS_Store": b"junk",
            "room/._b.pdf": b"junk",
        }
    )
    assert list(iter_zip_members(data)) == [
        ("room/a.txt", b"alpha"),
        ("room/sub/b.pdf", b"%PDF-1.4"),
    ]


@pytest.mark.parametrize("name", ["../evil.txt", "room/../../evil.txt", "..\\evil.txt"])
def test_zip_member_with_parent_path_is_refused(name: str) -> None:
    data = make_zip({name: b"x", "ok.txt": b"fine"})
    members = list(iter_zip_members(data))
    assert errors_by_path(members) == {name: "zip_unsafe_path"}
    assert ("ok.txt", b"fine") in members


@pytest.mark.parametrize("name", ["/abs.txt", "\\abs.txt", "C:/windows/evil.txt", "c:evil.txt"])
def test_zip_member_with_absolute_path_or_drive_is_refused(name: str) -> None:
    members = list(iter_zip_members(make_zip({name: b"x"})))
    assert errors_by_path(members) == {name: "zip_unsafe_path"}


def test_zip_bomb_member_is_refused_without_inflating_it() -> None:
    data = make_zeros_zip("zeros.bin", 50 * MIB)
    assert len(data) < MIB  # the point of a bomb: tiny on the wire
    tracemalloc.start()
    try:
        members = list(iter_zip_members(data))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert errors_by_path(members) == {"zeros.bin": "zip_bomb"}
    assert peak < 8 * MIB


def test_zip_member_that_lies_about_its_size_is_not_inflated() -> None:
    data = bytearray(make_zeros_zip("liar.bin", 50 * MIB))
    # Declare 1000 bytes in both the local header and the central directory.
    data[22:26] = (1000).to_bytes(4, "little")
    central = data.index(b"PK\x01\x02")
    data[central + 24 : central + 28] = (1000).to_bytes(4, "little")
    lying = bytes(data)
    tracemalloc.start()
    try:
        members = list(iter_zip_members(lying))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(members) == 1
    assert isinstance(members[0][1], ParseError)
    assert peak < 8 * MIB


def test_zip_over_the_total_size_limit_raises() -> None:
    data = make_zip({"a.bin": bytes(600), "b.bin": bytes(600)}, compression=zipfile.ZIP_STORED)
    with pytest.raises(ParseError) as caught:
        list(iter_zip_members(data, max_total_bytes=1000))
    assert caught.value.code == "zip_bomb"


def test_zip_with_too_many_files_raises() -> None:
    data = make_zip({f"f{i}.txt": b"x" for i in range(11)})
    with pytest.raises(ParseError) as caught:
        list(iter_zip_members(data, max_members=10))
    assert caught.value.code == "zip_too_many_files"


def test_zip_that_is_not_a_zip_is_corrupt() -> None:
    with pytest.raises(ParseError) as caught:
        list(iter_zip_members(b"PK\x03\x04 truncated nonsense"))
    assert caught.value.code == "corrupt"


def test_nested_zip_members_are_expanded_with_joined_paths() -> None:
    inner = make_zip({"deep.txt": b"deep"})
    middle = make_zip({"inner.zip": inner, "mid.txt": b"mid"})
    outer = make_zip({"docs/middle.zip": middle, "top.txt": b"top"})
    assert dict(iter_zip_members(outer)) == {
        "docs/middle.zip/inner.zip/deep.txt": b"deep",
        "docs/middle.zip/mid.txt": b"mid",
        "top.txt": b"top",
    }


def test_zip_nested_deeper_than_the_limit_is_reported_and_the_batch_goes_on() -> None:
    inner = make_zip({"deep.txt": b"deep"})
    outer = make_zip({"inner.zip": make_zip({"inner.zip": inner}), "top.txt": b"top"})
    members = list(iter_zip_members(outer, max_depth=1))
    assert errors_by_path(members) == {"inner.zip/inner.zip": "zip_nested_too_deep"}
    assert ("top.txt", b"top") in members


def test_corrupt_nested_zip_is_one_bad_member() -> None:
    outer = make_zip({"broken.zip": b"PK\x03\x04 not really", "ok.txt": b"ok"})
    members = list(iter_zip_members(outer))
    assert errors_by_path(members) == {"broken.zip": "corrupt"}
    assert ("ok.txt", b"ok") in members


def test_nested_zips_share_the_member_limit() -> None:
    inner = make_zip({f"f{i}.txt": b"x" for i in range(6)})
    outer = make_zip({"a.zip": inner, "b.zip": inner})
    members = list(iter_zip_members(outer, max_members=10))
    assert errors_by_path(members) == {"b.zip": "zip_too_many_files"}


def test_truncated_docx_is_corrupt() -> None:
    data = make_docx("Some text")
    with pytest.raises(ParseError) as caught:
        parse_document("c.docx", data[: len(data) // 2])
    assert caught.value.code == "corrupt"


def test_docx_break_rendered_twice_by_word_counts_once() -> None:
    document = docx.Document()
    document.add_paragraph("Page one").add_run().add_break(WD_BREAK.PAGE)
    # Word also records where it last rendered the page break, at the next paragraph.
    second = document.add_paragraph()
    second.add_run()._r.append(OxmlElement("w:lastRenderedPageBreak"))
    second.add_run("Page two")
    document.add_paragraph("Still page two")
    out = io.BytesIO()
    document.save(out)
    parsed = parse_document("c.docx", out.getvalue())
    assert parsed.text == "Page one\n\nPage two\nStill page two"
    assert parsed.page_starts == [0, len("Page one\n\n")]


def test_nested_zip_declaring_too_many_bytes_is_one_bad_member() -> None:
    inner = make_zip({"big.bin": bytes(2000)}, compression=zipfile.ZIP_STORED)
    outer = make_zip({"inner.zip": inner, "ok.txt": b"ok"})
    members = list(iter_zip_members(outer, max_total_bytes=3000))
    assert errors_by_path(members) == {"inner.zip": "zip_bomb"}
    assert ("ok.txt", b"ok") in members


def test_a_docx_claiming_an_unknown_zip_version_is_refused_not_a_crash() -> None:
    """Found by ``manage.py fuzz``: zipfile raises NotImplementedError for a member whose
    "version needed to extract" it does not know; the upload must be refused, not a 500."""
    import io as _io

    import docx as _docx

    buffer = _io.BytesIO()
    document = _docx.Document()
    document.add_paragraph("ARTICLE 1 - OBJET")
    document.save(buffer)
    data = bytearray(buffer.getvalue())
    header = data.find(b"PK\x01\x02")  # the first central directory entry
    data[header + 6 : header + 8] = (173).to_bytes(2, "little")  # "version 17.3"
    with pytest.raises(ParseError):
        parse_document("c.docx", bytes(data))
