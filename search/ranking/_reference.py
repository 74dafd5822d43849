"""The reference arm: chunks whose article number the query names ("article 8")."""

from __future__ import annotations

import re
from collections.abc import Sequence

from search.ranking._common import ArmRow, doc_filter
from search.replica import read_connection

_ARTICLE_REF = re.compile(
    r"\b(?:article|art\.?|clause|section|§)\s*(\d+(?:\.\d+)*|premier|1er|[IVXLC]+)\b", re.I
)
_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}


def article_refs(query: str) -> list[str]:
    """Article numbers a query names ("article 8", "clause 12.3", "Article premier")."""
    refs = []
    for match in _ARTICLE_REF.finditer(query):
        raw = match.group(1)
        if raw.lower() in {"premier", "1er"}:
            refs.append("1")
        elif raw.isdigit() or "." in raw:
            refs.append(raw)
        elif raw.upper() == raw:
            refs.append(str(_roman(raw.upper())))
    return refs


def _roman(numeral: str) -> int:
    total = 0
    for index, char in enumerate(numeral):
        value = _ROMAN[char]
        following = _ROMAN[numeral[index + 1]] if index + 1 < len(numeral) else 0
        total += -value if value < following else value
    return total


def reference_arm(
    *,
    workspace_id: int,
    refs: list[str],
    document_ids: Sequence[int] | None,
    limit: int,
    clause_types: Sequence[str] = (),
) -> list[ArmRow]:
    if not refs:
        return []
    where, params = doc_filter(document_ids, clause_types)
    with read_connection().cursor() as cursor:
        cursor.execute(
            "SELECT c.id, c.document_id FROM documents_chunk c "
            f"WHERE c.workspace_id = %s AND c.article_ref = ANY(%s){where} "
            "ORDER BY c.document_id, c.ordinal LIMIT %s",
            [workspace_id, refs, *params, limit],
        )
        return [(row[0], row[1], 1.0) for row in cursor.fetchall()]
