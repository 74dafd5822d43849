"""Without a query, the article that justifies each filter a contract passes: where its end
date, signature date or governing law was read ("ending before 2026-12-31" shows c04's
ARTICLE 2 — DURÉE beside the date). Read from the values' provenance, never ranked."""

from __future__ import annotations

from documents.models import Chunk, Document
from documents.selectors import chunks_holding
from search.filters import SearchFilters

# The filters whose value ingestion reads in the text, and the provenance record it keeps.
_FILTERED_FIELDS = ("end_date", "signature_date", "governing_law")


def filtered_fields(filters: SearchFilters) -> list[str]:
    """The filters on values read in the text, in a stable order."""
    wanted = {
        "end_date": filters.end_date is not None,
        "signature_date": filters.signature_date is not None,
        "governing_law": filters.governing_law is not None,
    }
    return [name for name in _FILTERED_FIELDS if wanted[name]]


def justifying_chunks(
    documents: list[Document], fields: list[str]
) -> dict[int, list[tuple[str, Chunk]]]:
    """For each document, (field, chunk) for each filtered value read in its text, in one
    query: the chunk holding the quote's start."""
    if not fields or not documents:
        return {}
    # The fields' records only, in one query (the listed documents do not load them).
    paths = [f"provenance__{name}" for name in fields]
    rows = Document.objects.filter(pk__in=[d.pk for d in documents]).values_list("pk", *paths)
    wanted: list[tuple[int, str, int]] = []
    for document_id, *records in rows:
        for name, record in zip(fields, records, strict=True):
            record = record if isinstance(record, dict) else {}
            # Read in the text: where; given by the data room: where the text states it.
            start = record.get("start") if record.get("source") == "text" else None
            start = record.get("text_start") if start is None else start
            if isinstance(start, int) and start >= 0:
                wanted.append((document_id, name, start))
    columns = ("heading", "page_start", "text", "clause_types", "ocr_confidence")
    chunks = chunks_holding(((doc_id, start) for doc_id, _, start in wanted), fields=columns)
    found: dict[int, list[tuple[str, Chunk]]] = {}
    for document_id, name, start in wanted:
        if (chunk := chunks.get((document_id, start))) is not None:
            found.setdefault(document_id, []).append((name, chunk))
    return found
