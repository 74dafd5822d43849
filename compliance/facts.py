"""The clauses ingestion read as facts in a contract's own text: the article quoting a
governing law, a term, a renewal, the dates, the parties or the title is a clause of that type,
whether or not the classifier tagged it. A required rule is met by it, and the other rules
read that article too (a "droit français" keyword rule checks the article that names the law).

Only facts read in the text count: a value the data room gave says nothing of the clauses.
"""

from __future__ import annotations

from typing import Any

from documents import provenance
from documents.models import Document
from documents.selectors import chunks_holding

# The clause type a fact's quote stands for, per provenance field.
FACT_TYPES = {
    "governing_law": "governing_law",
    "end_date": "expiration_date",
    "signature_date": "agreement_date",
    "effective_date": "effective_date",
}


def _read_in_text(record: dict[str, Any]) -> bool:
    return record.get("source") == provenance.TEXT and record.get("value") not in (None, "")


def _start(record: dict[str, Any]) -> int:
    """Where the record's quote starts (-1: not stored, as in records kept before quotes)."""
    start = record.get("start")
    return start if isinstance(start, int) else -1


def _starts(document: Document) -> dict[str, int]:
    """Clause type -> where its fact is quoted (-1: read in the text, place not stored)."""
    records = document.provenance or {}
    read = {
        clause_type: records.get(field) or provenance.record_from_columns(document, field)
        for field, clause_type in FACT_TYPES.items()
    }
    starts = {
        clause_type: _start(record) for clause_type, record in read.items() if _read_in_text(record)
    }
    # Renewal was read from the text before its provenance was kept, too.
    renewal = records.get("renewal") or {"value": document.renewal, "source": provenance.TEXT}
    terms = renewal.get("value")
    if _read_in_text(renewal) and isinstance(terms, dict) and terms.get("automatic"):
        starts["renewal_term"] = _start(renewal)
        if terms.get("notice_days"):
            starts["notice_period_to_terminate_renewal"] = starts["renewal_term"]
    parties = [party for party in records.get("parties") or [] if _read_in_text(party)]
    if parties:
        starts["parties"] = _start(parties[0])
    kind = records.get("contract_type") or {}
    if _read_in_text(kind) and kind.get("rule") == "title":
        starts["document_name"] = _start(kind)
    return starts


def facts_in_text(document: Document) -> dict[str, int | None]:
    """Clause type -> the chunk quoting the fact that shows it (None: read in the text, the
    chunk not known). One query for the chunks."""
    starts = _starts(document)
    chunks = chunks_holding([(document.pk, start) for start in starts.values() if start >= 0])
    return {
        clause_type: chunk.pk if (chunk := chunks.get((document.pk, start))) else None
        for clause_type, start in starts.items()
    }
