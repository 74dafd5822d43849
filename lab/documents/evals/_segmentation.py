"""``eval_segmentation``: how contracts are cut into articles, parsing and chunking only.

Each contract goes through the product's own parser (:func:`documents.parsing.parse_document`)
and chunker (:func:`documents.chunking.split_into_chunks`), as ingestion runs them, without
a database or embeddings. Two numbers say whether a contract "reads as it is written":

- the share of its text before its first article (the preamble; all of it when no article is
  found): over half means a lawyer sees most of the contract as "Preamble";
- its number of articles (top-level sections, a long article cut in parts counted once).

Suites: ``cuad`` (the 510 EDGAR contracts of CUAD, read as the .txt files they are) and
``brenalis`` (the data room's 20 French contracts, each read three ways: its text as stored
by a data-room import, rendered as a PDF as in ``eval_metadata --suite brenalis-text``, and
rendered on small pages with a running header, a running footer and page numbers, as office
PDFs print them). For Brenalis the articles each contract writes (its "ARTICLE n" lines) are
counted from the source text by a pattern of this module, and compared with those found.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from documents.chunking import ChunkDraft, split_into_chunks
from documents.parsing import parse_document
from lab.documents.evals._brenalis_text import BrenalisMissing, render_pdf
from lab.documents.evals._cuad import CuadMissing
from lab.report import Progress

_WORST = 15
# Small pages, so that a one-page contract spans several and its running lines repeat.
_RUNNING_LINES_PER_PAGE = 6
_RUNNING_HEADER = "Groupe Brenalis - Data room - Strictement confidentiel"
# The articles a Brenalis contract writes: "ARTICLE 3 — PRIX" alone on its line.
_WRITTEN_ARTICLE_RE = re.compile(r"^ARTICLE (\d+)\b", re.MULTILINE)
# What the running-lines rendering adds to every page, as the parser reads it back.
_RUNNING_LINE_RE = re.compile(rf"^(?:{re.escape(_RUNNING_HEADER)}|Page \d+ / \d+)$", re.MULTILINE)


@dataclass(frozen=True)
class Segmented:
    name: str
    chars: int
    first_share: float  # of the text's characters before the first article
    articles: list[str]  # the top-level articles' refs (headings when unnumbered), in order
    chunks: int
    running_lines: int  # running headers and page footers of our rendering left in the text


def segment(name: str, data: bytes) -> Segmented:
    """Parse ``data`` as the file ``name`` and cut it into chunks; measure the result."""
    parsed = parse_document(name, data)
    chunks = split_into_chunks(parsed.text, parsed.page_starts)
    return measured(name, parsed.text, chunks)


def measured(name: str, text: str, chunks: list[ChunkDraft]) -> Segmented:
    """The first section's share of ``text`` and the articles among ``chunks``."""
    body = len(text.strip()) or 1
    # Every chunk after the preamble carries its article's heading, a numbered one or not.
    first_article = next((c.char_start for c in chunks if c.heading), None)
    before = len(text[:first_article].strip()) if first_article is not None else body
    articles: list[str] = []
    previous: tuple[str, str] | None = None
    for chunk in chunks:
        key = (chunk.heading, chunk.article_ref)
        # The parts of one long article share its heading and ref: one article.
        if chunk.heading and key != previous:
            articles.append(chunk.article_ref or chunk.heading)
        previous = key
    running = len(_RUNNING_LINE_RE.findall(text))
    return Segmented(name, len(text), round(before / body, 4), articles, len(chunks), running)


def _percentile(values: list[int], share: float) -> int:
    ordered = sorted(values)
    return ordered[int(share * (len(ordered) - 1))] if ordered else 0


def summary(results: list[Segmented]) -> dict[str, Any]:
    """Share of contracts mostly preamble, articles per contract, and the worst contracts."""
    counts = [len(r.articles) for r in results]
    over_half = [r for r in results if r.first_share > 0.5]
    worst = sorted(results, key=lambda r: (-r.first_share, len(r.articles), r.name))[:_WORST]
    return {
        "contracts": len(results),
        "first_chunk_over_half": {
            "count": len(over_half),
            "share": round(len(over_half) / len(results), 4) if results else None,
        },
        "without_article": sum(1 for count in counts if count == 0),
        "articles_per_contract": {
            "median": statistics.median(counts) if counts else None,
            "p10": _percentile(counts, 0.1),
            "p90": _percentile(counts, 0.9),
        },
        "chunks_per_contract_median": (
            statistics.median(r.chunks for r in results) if results else None
        ),
        "worst": [
            {"name": r.name, "first_share": r.first_share, "articles": len(r.articles)}
            for r in worst
        ],
    }


def evaluate_cuad_segmentation(cuad: Path, *, limit: int, progress: Progress) -> dict[str, Any]:
    """The ``eval_segmentation --suite cuad --json`` object (the first ``limit`` contracts by
    file name, 0 = all)."""
    texts_dir = cuad / "full_contract_txt"
    paths = sorted(texts_dir.glob("*.txt")) if texts_dir.is_dir() else []
    if not paths:
        raise CuadMissing(f"No CUAD texts in {texts_dir} (pass --cuad DIR).")
    paths = paths[:limit] if limit else paths
    started = time.perf_counter()
    results = []
    for position, path in enumerate(paths, start=1):
        progress("contracts", position, len(paths))
        results.append(segment(path.name, path.read_bytes()))
    return {
        "suite": "cuad",
        **summary(results),
        "seconds": round(time.perf_counter() - started, 2),
    }


def render_with_running_lines(text: str) -> bytes:
    """``text`` on small A4 pages, each with a running header and a "Page n / N" footer."""
    from fpdf import FPDF  # imported here, as render_pdf does: a dev extra

    class _Paged(FPDF):
        def header(self) -> None:
            self.set_font("Helvetica", size=8)
            self.cell(0, 6, _RUNNING_HEADER, align="C", new_x="LMARGIN", new_y="NEXT")

        def footer(self) -> None:
            self.set_y(-15)
            self.set_font("Helvetica", size=8)
            self.cell(0, 6, f"Page {self.page_no()} / {{nb}}", align="C")

    pdf = _Paged(format="A4")
    latin = text.translate(_LATIN1_DASHES).encode("latin-1", "replace").decode("latin-1")
    lines = latin.splitlines() or [""]
    for first in range(0, len(lines), _RUNNING_LINES_PER_PAGE):
        pdf.add_page()
        pdf.set_font("Helvetica", size=10)
        pdf.multi_cell(w=0, text="\n".join(lines[first : first + _RUNNING_LINES_PER_PAGE]))
    return bytes(pdf.output())


_LATIN1_DASHES = str.maketrans({"\u2014": "-", "\u2013": "-", "\u2019": "'", "\u202f": " "})


def _brenalis_forms(entry: dict[str, Any]) -> Iterable[tuple[str, str, bytes]]:
    """(form, file name, bytes): the entry's text, its PDF, its PDF with running lines."""
    content, stem = str(entry["content"]), Path(str(entry["filename"])).stem
    yield "text", f"{stem}.txt", content.encode("utf-8")
    yield "pdf", f"{stem}.pdf", render_pdf(content)[0]
    yield "pdf_running_lines", f"{stem}.pdf", render_with_running_lines(content)


def evaluate_brenalis_segmentation(path: Path, *, progress: Progress) -> dict[str, Any]:
    """The ``eval_segmentation --suite brenalis --json`` object."""
    if not path.is_file():
        raise BrenalisMissing(f"No Brenalis data room at {path} (pass --brenalis FILE).")
    entries = [e for e in json.loads(path.read_text(encoding="utf-8")) if e.get("content")]
    started = time.perf_counter()
    by_form: dict[str, list[Segmented]] = {}
    as_written: dict[str, int] = {}
    differing: list[dict[str, Any]] = []
    for position, entry in enumerate(entries, start=1):
        progress("contracts", position, len(entries))
        written = _WRITTEN_ARTICLE_RE.findall(str(entry["content"]))
        for form, name, data in _brenalis_forms(entry):
            result = segment(name, data)
            by_form.setdefault(form, []).append(result)
            same = result.articles == written
            as_written[form] = as_written.get(form, 0) + same
            if not same:
                differing.append(
                    {"name": name, "form": form, "written": written, "found": result.articles}
                )
    return {
        "suite": "brenalis",
        "contracts": len(entries),
        "forms": {
            form: {
                **summary(results),
                "articles_as_written": as_written[form],
                "running_lines_left": sum(result.running_lines for result in results),
            }
            for form, results in by_form.items()
        },
        "differing": differing,
        "seconds": round(time.perf_counter() - started, 2),
    }
