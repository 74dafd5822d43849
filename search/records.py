"""How a contract is presented to tools: the same record in search results and get_contract."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from documents.models import Document, DocumentLink
from documents.normalize import fold_accents, iso_date

_WORD = re.compile(r"\w{3,}")
EXCERPT_CHARS = 320


def links_by_document(document_ids: Iterable[int]) -> dict[int, dict[str, list[str]]]:
    ids = list(document_ids)
    result: dict[int, dict[str, list[str]]] = {i: {"amends": [], "amended_by": []} for i in ids}
    links = DocumentLink.objects.filter(source_id__in=ids) | DocumentLink.objects.filter(
        target_id__in=ids
    )
    for link in links.select_related("source", "target").order_by("source__ref"):
        if link.source_id in result:
            result[link.source_id]["amends"].append(link.target.ref)
        if link.target_id in result:
            result[link.target_id]["amended_by"].append(link.source.ref)
    return result


def contract_record(document: Document, links: dict[str, list[str]]) -> dict[str, Any]:
    """The metadata of a contract as every tool shows it (end_date = effective end)."""
    return {
        "contract_id": document.ref,
        "filename": document.filename,
        "title": document.title or document.filename,
        "contract_type": document.contract_type or None,
        "parties": [
            {
                "entity_id": party.entity_id,
                "name": party.entity.name,
                "siren": party.entity.siren or None,
            }
            for party in document.parties.all()
        ],
        "signature_date": iso_date(document.signature_date),
        "end_date": iso_date(document.effective_end_date),
        "original_end_date": iso_date(document.end_date),
        "end_date_note": document.effective_end_explanation or None,
        "governing_law": document.governing_law or None,
        "amends": links.get("amends", []),
        "amended_by": links.get("amended_by", []),
        "warnings": list(document.warnings),
        "status": document.status,
    }


def excerpt(text: str, query: str | None, width: int = EXCERPT_CHARS) -> str:
    """The window of ``text`` that holds most of the query's words (or its start)."""
    compact = " ".join(text.split())
    if len(compact) <= width:
        return compact
    words = {w.lower() for w in _WORD.findall(fold_accents(query or ""))}
    if not words:
        return compact[:width].rstrip() + "…"
    folded = fold_accents(compact).lower()
    positions = sorted(match.start() for match in _WORD.finditer(folded) if match.group() in words)
    if not positions:
        return compact[:width].rstrip() + "…"
    best_start, best_count = positions[0], 0
    for start in positions:
        count = sum(1 for p in positions if start <= p < start + width)
        if count > best_count:
            best_start, best_count = start, count
    begin = max(0, best_start - width // 4)
    snippet = compact[begin : begin + width].strip()
    return ("…" if begin else "") + snippet + ("…" if begin + width < len(compact) else "")
