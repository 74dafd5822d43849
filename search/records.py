"""How a contract is presented to tools: the same record in search results and get_contract."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from core.normalize import fold_accents, iso_date
from documents.models import Document, DocumentLink
from documents.provenance import signature_as_known
from search.results import Party, RenewalTerms

_WORD = re.compile(r"\w{3,}")
EXCERPT_CHARS = 320


def contract_fields(document: Document, links: Mapping[str, list[DocumentLink]]) -> dict[str, Any]:
    """The fields of :class:`~search.results.ContractRecord` for ``document``, whose
    ``links`` come from :func:`documents.selectors.amendment_links`."""
    return {
        "contract_id": document.ref,
        "filename": document.filename,
        "title": document.display_title,
        "contract_type": document.contract_type or None,
        "contract_type_title": document.contract_type_title or None,
        "parties": [
            Party(
                entity_id=party.entity_id,
                name=party.entity.name,
                siren=party.entity.siren or None,
                role=party.role or None,
                defined_term=party.defined_term or None,
            )
            for party in document.parties.all()
        ],
        "signature_date": iso_date(document.signature_date),
        "signature_date_as_known": signature_as_known(
            document.signature_earliest, document.signature_precision
        ),
        "effective_date": iso_date(document.effective_date),
        "end_date": iso_date(document.effective_end_date),
        "original_end_date": iso_date(document.end_date),
        "end_date_note": document.effective_end_explanation or None,
        # An amendment that dates a perpetual contract's end makes its end a date.
        "end_date_kind": "date" if document.effective_end_date else document.end_date_kind or None,
        "renewal": _renewal(document.renewal),
        "governing_law": document.governing_law or None,
        "amends": [link.target.ref for link in links["amends"]],
        "amended_by": [link.source.ref for link in links["amended_by"]],
        "warnings": list(document.warnings),
        "status": document.status,
    }


def _renewal(stored: Mapping[str, Any]) -> RenewalTerms | None:
    if not stored:
        return None
    return RenewalTerms(
        automatic=bool(stored.get("automatic")),
        term_months=stored.get("term_months"),
        notice_days=stored.get("notice_days"),
    )


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
