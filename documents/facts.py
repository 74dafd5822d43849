"""The viewer's table of facts: each metadata value in words, with where it was read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext, ngettext

from documents import provenance
from documents.selectors import LocatedValue


@dataclass(frozen=True)
class Fact:
    """One row of the viewer's table."""

    field: str
    label: str
    value: str  # in words; "" when unknown
    source: str  # "metadata" | "text" | ""
    confidence: str  # certain | probable | uncertain | unknown
    confidence_words: str
    quote: str
    chunk_id: int | None
    page: int | None
    reason: str  # why unknown, in words
    alternatives: list[str]
    role: str = ""  # parties only


def _months(count: int) -> str:
    if count % 12 == 0:
        years = count // 12
        return ngettext("%(n)s year", "%(n)s years", years) % {"n": years}
    return ngettext("%(n)s month", "%(n)s months", count) % {"n": count}


def _renewal_words(value: dict[str, Any]) -> str:
    if not value.get("automatic"):
        return gettext("renewal by agreement only")
    words = [gettext("automatic renewal")]
    if value.get("term_months"):
        words.append(gettext("for %(period)s") % {"period": _months(int(value["term_months"]))})
    if value.get("notice_days"):
        days = int(value["notice_days"])
        words.append(ngettext("%(n)s day's notice", "%(n)s days' notice", days) % {"n": days})
    return ", ".join(words)


def value_words(field: str, value: Any) -> str:
    """A stored value as the viewer says it."""
    if value is None:
        return ""
    if field == "contract_type":
        return provenance.contract_type_label(str(value))
    if field == "governing_law":
        return provenance.governing_law_label(str(value))
    if field == "end_date" and value == "perpetual":
        return gettext("none: runs until terminated")
    if field == "renewal" and isinstance(value, dict):
        return _renewal_words(value)
    return str(value)


def facts(located: list[LocatedValue]) -> list[Fact]:
    """The viewer's rows, fields first, then parties."""
    rows = []
    for entry in located:
        record = entry.record
        reason = record.get("reason")
        level = provenance.confidence_label(record)
        rows.append(
            Fact(
                field=entry.field,
                label=str(provenance.FIELD_LABELS.get(entry.field, entry.field)),
                value=value_words(entry.field, record.get("value")),
                source=record.get("source") or "",
                confidence=level,
                confidence_words=str(provenance.CONFIDENCE_WORDS[level]),
                quote=record.get("quote") or "",
                chunk_id=entry.chunk_id,
                page=entry.page,
                reason=provenance.reason_label(reason) if reason else "",
                alternatives=[
                    value_words(entry.field, other.get("value"))
                    for other in record.get("alternatives", [])
                ],
                role=record.get("role") or "",
            )
        )
    return rows
