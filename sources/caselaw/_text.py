"""A decision's text and its parts: the header, the visas, the motifs (considérants or
numbered points) and the dispositif, as French administrative courts write them.

Decoding goes through the documents' parsers: the site declares ISO-8859-1 but has been
seen sending UTF-8, so UTF-8 is tried first and cp1252 (a superset of Latin-1) after.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext

from documents import parsing
from sources.caselaw._http import CaseLawError, source_changed

_VISA_RE = re.compile(r"^\s*Vu\b", re.IGNORECASE)
_CONSIDERANT_RE = re.compile(r"^\s*Considérant\b(?!\s+ce\s+qui\s+suit)", re.IGNORECASE)
_MOTIFS_OPEN_RE = re.compile(r"^\s*Considérant\s+ce\s+qui\s+suit", re.IGNORECASE)
_POINT_RE = re.compile(r"^\s*(\d{1,3})\.\s+\S")
# "D E C I D E :", "DÉCIDE :", "O R D O N N E :" (ordonnances), "ARRÊTE" is not used.
_DISPOSITIF_RE = re.compile(
    r"^\s*(?:D\s*[EÉ]\s*C\s*I\s*D\s*E|O\s*R\s*D\s*O\s*N\s*N\s*E)\s*:?\s*$", re.IGNORECASE
)
_ARTICLE_RE = re.compile(r"^\s*Article\s+(1er|\d{1,3})\s*[:.\-\u2013]\s*", re.IGNORECASE)
_TAG_RE = re.compile(r"<[^>]{0,200}>")
_PARTIES_RE = re.compile(r"^(?P<a>.{3,200}?)\s+c(?:/|\.)\s+(?P<b>.{3,200})$")


@dataclass
class DecisionText:
    text: str
    header: str = ""
    visas: list[str] = field(default_factory=list)
    considerants: list[dict[str, Any]] = field(default_factory=list)
    dispositif: list[dict[str, Any]] = field(default_factory=list)
    recognised: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "header": self.header,
            "visas": self.visas,
            "considerants": self.considerants,
            "dispositif": self.dispositif,
            "structure_recognised": self.recognised,
        }


def html_text(data: bytes, *, site: str) -> str:
    """The text of a downloaded HTML page."""
    try:
        return parsing.parse_document("decision.html", data).text
    except parsing.ParseError as exc:
        raise source_changed(site, exc.message) from None


def pdf_text(data: bytes, *, site: str) -> str:
    """The text of a conclusions PDF (its text layer; a scan has none)."""
    if not data.lstrip()[:5].startswith(b"%PDF"):
        raise source_changed(site, gettext("a PDF was expected"))
    try:
        parsed = parsing.parse_document("conclusions.pdf", data)
    except parsing.ParseError as exc:
        raise source_changed(site, exc.message) from None
    if parsed.needs_ocr:
        message = gettext("The conclusions are a scan without a text layer: read them on the site.")
        raise CaseLawError("unavailable", message)
    return parsed.text


def _paragraphs(lines: list[str]) -> list[str]:
    return [line.strip() for line in lines if line.strip()]


def _points(lines: list[str]) -> list[dict[str, Any]]:
    """Numbered points ("1. Il ressort…") or, in older decisions, one point per
    "Considérant que…" paragraph (numbered in order)."""
    points: list[dict[str, Any]] = []
    for line in _paragraphs(lines):
        numbered = _POINT_RE.match(line)
        if numbered or _CONSIDERANT_RE.match(line) or not points:
            number = int(numbered.group(1)) if numbered else len(points) + 1
            points.append({"n": number, "text": line})
        else:
            points[-1]["text"] += "\n" + line
    return points


def _articles(lines: list[str]) -> list[dict[str, Any]]:
    articles: list[dict[str, Any]] = []
    for line in _paragraphs(lines):
        match = _ARTICLE_RE.match(line)
        if match:
            articles.append({"article": match.group(1).lower(), "text": line})
        elif articles:
            articles[-1]["text"] += "\n" + line
        elif not set(line) <= set("-\u2013\u2014 "):  # the rule under "D E C I D E"
            articles.append({"article": "", "text": line})
    return articles


def split_decision(text: str) -> DecisionText:
    """The decision's parts; ``recognised`` False when neither visas nor dispositif are
    found (the full text is still there)."""
    lines = text.split("\n")
    first_visa = next((i for i, line in enumerate(lines) if _VISA_RE.match(line)), None)
    dispositif = next((i for i, line in enumerate(lines) if _DISPOSITIF_RE.match(line)), None)
    if first_visa is None and dispositif is None:
        return DecisionText(text=text)
    start = first_visa if first_visa is not None else 0
    end = dispositif if dispositif is not None else len(lines)
    motifs = next(
        (
            i
            for i in range(start, end)
            if _MOTIFS_OPEN_RE.match(lines[i])
            or _CONSIDERANT_RE.match(lines[i])
            or (_POINT_RE.match(lines[i]) and i > start)
        ),
        end,
    )
    body_start = motifs + 1 if motifs < end and _MOTIFS_OPEN_RE.match(lines[motifs]) else motifs
    return DecisionText(
        text=text,
        header="\n".join(_paragraphs(lines[:start])),
        visas=_paragraphs(lines[start:motifs]),
        considerants=_points(lines[body_start:end]),
        dispositif=_articles(lines[end + 1 :]) if dispositif is not None else [],
        recognised=True,
    )


def parties_from_header(header: str) -> dict[str, str] | None:
    """ "M. X c/ Ministre de…" in the first lines, when the court wrote the parties there."""
    for line in header.split("\n")[:20]:
        match = _PARTIES_RE.match(line.strip())
        if match:
            return {"applicant": match.group("a").strip(), "defendant": match.group("b").strip()}
    return None


def visible_text(fragment: str) -> str:
    """Elasticsearch highlight text: ``<mark>`` and other tags dropped, entities read."""
    return html.unescape(_TAG_RE.sub("", fragment)).strip()
