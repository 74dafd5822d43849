"""Metadata: what the data room says and the text shows (dates, law, parties, amendment)."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext

from documents import extraction
from documents.models import Document
from documents.normalize import iso_date

_FRENCH_MARKERS = re.compile(r"\b(le|la|les|des|du|et|est|pour|dans|contrat|présent)\b", re.I)
_ENGLISH_MARKERS = re.compile(r"\b(the|and|of|shall|this|agreement|with|for)\b", re.I)


def language_of(text: str) -> str:
    sample = text[:20000]
    french = len(_FRENCH_MARKERS.findall(sample))
    english = len(_ENGLISH_MARKERS.findall(sample))
    if not french and not english:
        return ""
    return "fr" if french >= english else "en"


def apply_metadata(document: Document, text: str) -> list[tuple[str, str]]:
    """Normalise metadata and compare it with the text. Returns the parties (name, siren)."""
    meta = document.raw_metadata
    warnings: list[str] = []
    document.title = document.title or str(meta.get("title") or "")
    document.contract_type = extraction.normalize_contract_type(meta.get("contract_type")) or ""
    document.signature_date = extraction.parse_date(_as_str(meta.get("signature_date")))
    if meta.get("signature_date") and document.signature_date is None:
        message = gettext("Unreadable signature date: %(value)r.")
        warnings.append(message % {"value": meta.get("signature_date")})

    metadata_end = extraction.parse_date(_as_str(meta.get("end_date")))
    if meta.get("end_date") and metadata_end is None:
        warnings.append(
            gettext("Unreadable end date: %(value)r.") % {"value": meta.get("end_date")}
        )
    text_end = extraction.derive_end_date(text, document.signature_date)
    if metadata_end is not None:
        document.end_date, document.end_date_source = metadata_end, "metadata"
    elif text_end is not None:
        document.end_date, document.end_date_source = text_end.value, "text"
    else:
        document.end_date, document.end_date_source = None, ""

    metadata_law = extraction.normalize_governing_law(_as_str(meta.get("governing_law")))
    text_law = extraction.governing_law_from_text(text)
    if metadata_law:
        document.governing_law, document.governing_law_source = metadata_law, "metadata"
    elif text_law is not None:
        document.governing_law, document.governing_law_source = str(text_law.value), "text"
    else:
        document.governing_law, document.governing_law_source = "", ""

    warnings += extraction.find_contradictions(
        metadata_end=metadata_end,
        text_end=text_end,
        metadata_law=metadata_law,
        text_law=text_law,
        metadata_signature=document.signature_date,
    )
    _apply_amendment(document, text)
    document.amounts = [
        {"value": str(a.value), "currency": a.currency, "evidence": a.evidence}
        for a in extraction.extract_amounts(text)
    ]
    document.warnings = warnings
    return _parties(meta, text)


def _apply_amendment(document: Document, text: str) -> None:
    amendment = extraction.detect_amendment(
        title=document.title, contract_type=document.contract_type, text=text
    )
    document.is_amendment = amendment is not None
    document.amendment_number = amendment.number if amendment else None
    document.amendment_hints = (
        {
            "parent_title_hint": amendment.parent_title_hint,
            "parent_date_hint": iso_date(amendment.parent_date_hint),
            "new_end_date": iso_date(amendment.new_end_date.value)
            if amendment.new_end_date
            else None,
            "new_end_evidence": amendment.new_end_date.evidence if amendment.new_end_date else "",
        }
        if amendment
        else {}
    )


def _parties(meta: dict[str, Any], text: str) -> list[tuple[str, str]]:
    """(name, SIREN) of each party: the data room's list, else the ones the text names."""
    names = meta.get("parties") or extraction.extract_parties_from_text(text)
    sirens = meta.get("siren_parties") or []
    return [
        (str(name), str(sirens[i]) if i < len(sirens) and sirens[i] else "")
        for i, name in enumerate(names)
        if name and str(name).strip()
    ]


_FILENAME_WORD = re.compile(r"[^\W\d_]{3,}")


def filename_title(filename: str) -> str:
    """Words of a file name ("bail_commercial_lyon.pdf" → "bail commercial lyon"), or "" when
    it is an opaque id ("a5a68dbd19.txt"): as an index prefix an id would only add noise."""
    stem = filename.rsplit(".", 1)[0]
    words = _FILENAME_WORD.findall(stem)
    return " ".join(words) if len(words) >= 2 else ""


def _as_str(value: Any) -> str | None:
    return None if value is None else str(value)
