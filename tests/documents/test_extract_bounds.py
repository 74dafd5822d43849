"""Reading a file is bounded while it happens: pages, characters, seconds and memory.

The hostile PDF below is 20 KB and makes pypdf spend ~3.5 s a page (100,000 one-letter
text operators in one compressed content stream that every page shares): read whole, it held
a worker for minutes. Each test proves it stops at the limit, naming the setting.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import docx
import pytest
from django.core.files.storage import default_storage
from django.utils import translation
from fpdf import FPDF

from documents import parsing
from documents.models import Document, DocumentStatus
from documents.parsing._isolated import STARTUP_SECONDS
from documents.pipeline import store_named
from documents.services import document_process, document_store
from lab.agents.bench import hostile_pdf
from tests.helpers.rooms import Room
from workspaces.tenancy import tenant_scope

pytestmark = pytest.mark.django_db

CONTRACT = (
    "CONTRAT DE PRESTATION DE SERVICES\n\nArticle 1 - Objet\nLe Prestataire fournit au Client "
    "les services décrits en annexe.\n\nArticle 2 - Durée\nLe contrat est conclu pour un an."
)


@pytest.fixture(autouse=True)
def _english():
    # The refusals speak the active language (French by default); read in English here.
    with translation.override("en"):
        yield


def contract_pdf() -> bytes:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    for paragraph in CONTRACT.split("\n\n"):
        pdf.add_page()
        pdf.multi_cell(w=0, text=paragraph.encode("latin-1", "replace").decode("latin-1"))
    return bytes(pdf.output())


def docx_bomb(*, megabytes: int) -> bytes:
    """A DOCX of a few hundred kilobytes whose document.xml expands to ``megabytes`` MB."""
    plain = io.BytesIO()
    docx.Document().save(plain)
    out = io.BytesIO()
    with (
        zipfile.ZipFile(plain) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bomb,
    ):
        for info in source.infolist():
            body = source.read(info.filename)
            if info.filename == "word/document.xml":
                paragraph = b"<w:p><w:r><w:t>" + b"a" * 1000 + b"</w:t></w:r></w:p>"
                body = body.replace(b"<w:body>", b"<w:body>" + paragraph * (megabytes * 1000))
            bomb.writestr(info.filename, body)
    return out.getvalue()


def ingest(room: Room, filename: str, data: bytes) -> tuple[Document, float]:
    """Store the file and run its steps, as a worker does; (the document, seconds spent)."""
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        document, _ = document_store(
            workspace=room.workspace, filename=filename, data=data, user=room.owner
        )
        started = time.monotonic()
        document = document_process(workspace_id=room.workspace.pk, document_id=document.pk)
        return document, time.monotonic() - started


def test_hostile_pdf_fails_within_the_time_budget_and_keeps_its_original(room: Room, settings):
    settings.LEXROOM_EXTRACT_SECONDS = 3
    data = hostile_pdf(pages=30, operators=100_000)  # ~100 s of reading, whole
    document, seconds = ingest(room, "hostile.pdf", data)
    assert document.status == DocumentStatus.FAILED
    assert "Extraction stopped after 3 s" in document.status_reason
    assert "LEXROOM_EXTRACT_SECONDS" in document.status_reason
    assert seconds < 3 + STARTUP_SECONDS + 2
    assert document.text == ""
    with default_storage.open(document.original, "rb") as original:
        assert original.read() == data


def test_one_endless_page_is_killed_at_the_deadline():
    # One page of ~35 s: the meter, between pages, never gets a say; the process is killed.
    data = hostile_pdf(pages=1, operators=1_000_000)
    started = time.monotonic()
    with pytest.raises(parsing.LimitReached) as stopped:
        parsing.parse_isolated(
            "endless.pdf", data, limits=parsing.Limits(seconds=2), memory_mb=1024
        )
    assert stopped.value.limit == "seconds"
    assert time.monotonic() - started < 2 + STARTUP_SECONDS + 2


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended while we looked
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_the_child_dies_with_a_worker_killed_outright(tmp_path: Path):
    (tmp_path / "endless.pdf").write_bytes(hostile_pdf(pages=1, operators=1_000_000))
    worker_code = (
        "import sys, django\n"
        "from django.conf import settings\n"
        "settings.configure(USE_I18N=False, INSTALLED_APPS=[])\n"
        "django.setup()\n"
        "from documents.parsing import Limits, parse_isolated\n"
        "data = open(sys.argv[1], 'rb').read()\n"
        "parse_isolated('endless.pdf', data, limits=Limits(seconds=60), memory_mb=1024)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(parsing.__file__).parents[2])}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    worker = subprocess.Popen(
        [sys.executable, "-c", worker_code, str(tmp_path / "endless.pdf")], env=env
    )
    deadline = time.monotonic() + 20
    while not (children := _children(worker.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert children, "the worker started no child"
    worker.kill()  # SIGKILL: no Python code of the worker runs
    worker.wait()
    deadline = time.monotonic() + 5
    while any(_alive(child) for child in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(child) for child in children)


def _niceness(pid: int) -> int:
    # /proc/<pid>/stat: field 19, the 17th after the command's closing parenthesis.
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def _reading_child(pid: int) -> int | None:
    for child in _children(pid):
        try:
            if b"documents.parsing" in Path(f"/proc/{child}/cmdline").read_bytes():
                return child
        except OSError:  # ended while we looked
            continue
    return None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_reading_child_yields_the_cpu_to_its_parent(settings):
    settings.LEXROOM_EXTRACT_NICE = 5
    data = hostile_pdf(pages=1, operators=1_000_000)  # ~35 s of reading: still running

    def read() -> None:
        with pytest.raises((parsing.LimitReached, parsing.ParseError)):
            parsing.parse_isolated(
                "slow.pdf", data, limits=parsing.Limits(seconds=30), memory_mb=1024
            )

    reader = threading.Thread(target=read)
    reader.start()
    ours, seen = os.getpriority(os.PRIO_PROCESS, 0), None
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        child = _reading_child(os.getpid())
        if child is not None:
            try:
                seen = _niceness(child)
            except OSError:
                break
            if seen > ours:  # set once the child has read its header
                break
        time.sleep(0.05)
    if (child := _reading_child(os.getpid())) is not None:
        os.kill(child, signal.SIGKILL)  # seen: the rest of its reading proves nothing
    reader.join(40)
    assert seen == min(ours + 5, 19), (ours, seen)


def test_normal_pdf_still_ingests_with_its_pages(room: Room):
    document, _ = ingest(room, "contrat.pdf", contract_pdf())
    assert document.status != DocumentStatus.FAILED, document.status_reason
    assert "Article 2 - Dur" in document.text
    assert len(document.page_starts) == 3


def test_page_limit_refuses_before_any_page_is_read(room: Room, settings):
    settings.LEXROOM_EXTRACT_MAX_PAGES = 10
    # 30 pages of ~3.5 s each: refused on the declared count, before the first is read.
    document, seconds = ingest(room, "long.pdf", hostile_pdf(pages=30, operators=100_000))
    assert document.status == DocumentStatus.FAILED
    assert "30 pages, more than the 10 allowed" in document.status_reason
    assert "LEXROOM_EXTRACT_MAX_PAGES" in document.status_reason
    assert seconds < 3 + STARTUP_SECONDS


def test_character_limit_stops_reading_at_the_first_page_past_it(room: Room, settings):
    settings.LEXROOM_MAX_DOCUMENT_CHARS = 1000
    # 200 pages of 20,000 characters (~0.5 s each): stopped after the first, not the 200th.
    document, seconds = ingest(room, "big.pdf", hostile_pdf(pages=200, operators=20_000))
    assert document.status == DocumentStatus.FAILED
    assert "20,000 characters, more than the 1,000 allowed" in document.status_reason
    assert "LEXROOM_MAX_DOCUMENT_CHARS" in document.status_reason
    assert seconds < 15


def test_memory_limit_stops_a_docx_bomb_and_names_its_setting(room: Room, settings):
    settings.LEXROOM_EXTRACT_MEMORY_MB = 300
    # Its XML alone is more than the limit: the reading runs out of memory, not the worker.
    data = docx_bomb(megabytes=400)
    assert len(data) < 2 * 1024 * 1024
    document, _ = ingest(room, "bomb.docx", data)
    assert document.status == DocumentStatus.FAILED
    assert "more than 300 MB of memory" in document.status_reason
    assert "LEXROOM_EXTRACT_MEMORY_MB" in document.status_reason


def test_html_reading_stops_at_the_character_limit_slice_by_slice():
    html = ("<p>" + "mot " * 1_000_000 + "</p>") * 3  # 12 million characters of text
    with pytest.raises(parsing.LimitReached) as stopped:
        parsing.parse_document("page.html", html.encode(), limits=parsing.Limits(max_chars=1000))
    assert stopped.value.limit == "chars"
    assert stopped.value.count < 2_000_000  # the first slice of the page, not all of it


def test_docx_reading_stops_at_the_character_limit_block_by_block():
    document = docx.Document()
    for _ in range(2000):
        document.add_paragraph("clause " * 100)
    out = io.BytesIO()
    document.save(out)
    with pytest.raises(parsing.LimitReached) as stopped:
        parsing.parse_document("c.docx", out.getvalue(), limits=parsing.Limits(max_chars=5000))
    assert stopped.value.limit == "chars"
    assert stopped.value.count < 6000


def test_text_over_the_page_limit_is_refused():
    with pytest.raises(parsing.LimitReached) as stopped:
        parsing.parse_document("c.txt", b"page\f" * 50, limits=parsing.Limits(max_pages=10))
    assert (stopped.value.limit, stopped.value.count) == ("pages", 51)


def test_hostile_archive_member_fails_and_its_neighbour_is_read(room: Room, settings):
    settings.LEXROOM_EXTRACT_SECONDS = 3
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as members:
        members.writestr("hostile.pdf", hostile_pdf(pages=30, operators=100_000))
        members.writestr("contrat.txt", CONTRACT)
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        results = store_named(
            workspace=room.workspace, name="deal.zip", data=archive.getvalue(), user=room.owner
        )
        processed = {
            result.name: document_process(
                workspace_id=room.workspace.pk, document_id=result.document.pk
            )
            for result in results
            if result.document is not None
        }
    assert processed["deal.zip/hostile.pdf"].status == DocumentStatus.FAILED
    assert "LEXROOM_EXTRACT_SECONDS" in processed["deal.zip/hostile.pdf"].status_reason
    assert processed["deal.zip/contrat.txt"].status != DocumentStatus.FAILED
    assert "Article 2" in processed["deal.zip/contrat.txt"].text


def test_refusals_inside_the_child_speak_the_callers_language():
    broken = b"%PDF-1.7\n" + bytes(range(256)) * 20
    with translation.override("fr"):
        with pytest.raises(parsing.ParseError) as in_child:
            parsing.parse_isolated(
                "cassé.pdf", broken, limits=parsing.Limits(seconds=30), memory_mb=1024
            )
        with pytest.raises(parsing.ParseError) as here:
            parsing.parse_document("cassé.pdf", broken)
    assert in_child.value.code == "corrupt"
    assert in_child.value.message == here.value.message
    assert "le PDF est illisible" in in_child.value.message
