"""``eval_metadata --suite brenalis-text``: the Brenalis data room's contracts read from their
text alone, as a lawyer's PDF upload would be.

Each entry's ``content`` is rendered to a PDF here (fpdf2, a page every ~45 lines), read back
by the product's own parser, and its metadata extracted by the same
:func:`documents.extraction.read_contract` the pipeline runs. The data room's JSON fields
(never shown to the extraction) are the gold: signature date (exact day), end date (exact
day; a date counted from a term also within one day, reported apart), parties (every listed
party found), governing law and contract type (mapped to the vocabulary). A field is scored
over the entries whose JSON gives it.

The data room's fields were not all written from its texts: most Brenalis texts never state
their signature date, and some never name their parties. Each field is therefore also scored
over the entries whose text *states* the gold value (the date among the text's date phrases,
every party's name in the text), and ``guessed`` counts the entries where the text does not
state it yet we answered something else: the answer a lawyer must never see shown as certain.
"""

from __future__ import annotations

import json
import logging
import statistics
import time
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

from django.conf import settings

from documents.extraction import (
    ContractReading,
    Finding,
    PartialDate,
    contract_type_key,
    entity_key,
    find_dates,
    normalize_governing_law,
    parse_date,
    read_contract,
)
from documents.parsing import parse_document
from lab.documents.evals._cuad import same_party
from lab.documents.evals._scoring import FieldScore
from lab.report import Progress

_DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
_LINES_PER_PAGE = 45
# Helvetica (no font file needed) covers Latin-1 only: these are written the way a
# typewriter would.
_LATIN1 = str.maketrans(
    {
        "\u2014": "-",  # em dash
        "\u2013": "-",  # en dash
        "\u2019": "'",
        "\u2018": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2026": "...",
        "\u0153": "oe",
        "\u0152": "OE",
        "\u202f": " ",
        "\u20ac": "EUR",
    }
)


class BrenalisMissing(FileNotFoundError):
    """The Brenalis data-room JSON is not where it was looked for, or fpdf2 (a dev extra)
    that renders the PDFs is not installed."""


def default_brenalis_file() -> Path:
    return (
        Path(settings.BASE_DIR).parent
        / "shared"
        / "data"
        / "dataroom-brenalis"
        / "exemple_data_room.json"
    )


def render_pdf(text: str) -> tuple[bytes, str]:
    """``text`` as a PDF of A4 pages, and the font used (DejaVu when installed)."""
    # fontTools logs every glyph table it subsets when DejaVu is embedded.
    logging.getLogger("fontTools").setLevel(logging.WARNING)
    try:
        from fpdf import FPDF  # imported here: only this evaluation renders PDFs
    except ImportError:
        raise BrenalisMissing(
            "The brenalis-text suite renders PDFs with fpdf2: pip install -e '.[dev]'."
        ) from None

    pdf = FPDF(format="A4")
    if _DEJAVU.is_file():
        pdf.add_font("DejaVu", fname=str(_DEJAVU))
        pdf.set_font("DejaVu", size=10)
        font = "DejaVuSans"
    else:
        pdf.set_font("Helvetica", size=10)
        text, font = (
            text.translate(_LATIN1).encode("latin-1", "replace").decode("latin-1"),
            "Helvetica",
        )
    lines = text.splitlines() or [""]
    for first in range(0, len(lines), _LINES_PER_PAGE):
        pdf.add_page()
        pdf.multi_cell(w=0, text="\n".join(lines[first : first + _LINES_PER_PAGE]))
    return bytes(pdf.output()), font


def _day(read: Any) -> date | None:
    if isinstance(read, Finding) and isinstance(read.value, PartialDate):
        return read.value.exact
    return None


def _end_day(reading: ContractReading) -> tuple[date | None, bool]:
    """Our end date and whether it was counted from a term (the ±1 day tolerance)."""
    read = reading.expiration
    if not isinstance(read, Finding) or read.value.date is None:
        return None, False
    return read.value.date.exact, "term" in read.rule or "duration" in read.rule


def _score_entry(
    entry: dict[str, Any], text: str, reading: ContractReading, scores: dict[str, FieldScore]
) -> None:
    name = str(entry.get("filename", ""))
    stated_dates = {found for found, _, _ in find_dates(text)}
    signed = parse_date(str(entry["signature_date"])) if entry.get("signature_date") else None
    if signed is not None:
        ours_signed = _day(reading.agreement_date)
        scores["signature_date"].add(
            name, signed, ours_signed, stated=signed in stated_dates, answered=ours_signed
        )
    ended = parse_date(str(entry["end_date"])) if entry.get("end_date") else None
    if ended is not None:
        ours, counted = _end_day(reading)
        tolerant = ours is not None and counted and abs((ours - ended).days) <= 1
        scores["end_date"].add(
            name, ended, ours, tolerant_hit=tolerant, stated=ended in stated_dates, answered=ours
        )
    gold_parties = [str(party) for party in entry.get("parties") or []]
    if gold_parties:
        ours_names = [finding.value.name for finding in reading.parties]
        found = all(any(same_party(o, g) for o in ours_names) for g in gold_parties)
        named = all(_named_in(text, party) for party in gold_parties)
        scores["parties"].add(
            name, gold_parties, ours_names, hit=found, stated=named, answered=ours_names
        )
    law = normalize_governing_law(entry.get("governing_law"))
    if law:
        read = reading.governing_law
        scores["governing_law"].add(name, law, read.value if isinstance(read, Finding) else None)
    kind = contract_type_key(entry.get("contract_type"))
    if kind:
        read = reading.contract_type
        scores["contract_type"].add(
            name, kind, read.value.key if isinstance(read, Finding) else None
        )


def _named_in(text: str, party: str) -> bool:
    """Whether the text names the party (its distinctive words, accents and case aside)."""
    key = entity_key(party)
    return bool(key) and f" {key} " in f" {entity_key(text)} "


def evaluate_brenalis_text(path: Path, *, progress: Progress) -> dict[str, Any]:
    """The ``eval_metadata --suite brenalis-text --json`` object."""
    if not path.is_file():
        raise BrenalisMissing(f"No Brenalis data room at {path} (pass --brenalis FILE).")
    entries = [e for e in json.loads(path.read_text(encoding="utf-8")) if e.get("content")]
    started = time.perf_counter()
    fields = ("signature_date", "end_date", "parties", "governing_law", "contract_type")
    scores = {field: FieldScore(field, day_tolerance=field == "end_date") for field in fields}
    timings: list[float] = []
    fonts: Counter[str] = Counter()
    for position, entry in enumerate(entries, start=1):
        progress("contracts", position, len(entries))
        data, font = render_pdf(str(entry["content"]))
        fonts[font] += 1
        parsed = parse_document(f"{Path(str(entry['filename'])).stem}.pdf", data)
        began = time.perf_counter()
        reading = read_contract(parsed.text)
        timings.append((time.perf_counter() - began) * 1000)
        _score_entry(entry, parsed.text, reading, scores)
    return {
        "suite": "brenalis-text",
        "contracts": len(entries),
        "rendered_with": dict(fonts),
        "fields": {field: score.result() for field, score in scores.items()},
        "errors_by_cause": _causes(scores.values()),
        "extraction_ms": {
            "median": round(statistics.median(timings), 2) if timings else None,
            "p95": round(sorted(timings)[int(0.95 * (len(timings) - 1))], 2) if timings else None,
        },
        "seconds": round(time.perf_counter() - started, 2),
    }


def _causes(scores: Any) -> list[dict[str, Any]]:
    counts: Counter[str] = Counter()
    for score in scores:
        counts.update(score.causes)
    return [{"cause": cause, "count": n} for cause, n in counts.most_common(20)]
