"""Template filters for the contract viewer: vocabulary keys in the reader's language."""

from __future__ import annotations

from datetime import date

from django import template

from documents import clause_types, provenance

register = template.Library()


@register.filter
def role_label(key: str) -> str:
    """A party role key ("lessee") as the reader's language says it ("preneur")."""
    return provenance.role_label(key)


@register.filter
def contract_type_label(key: str) -> str:
    return provenance.contract_type_label(key) if key else ""


@register.filter
def law_label(value: str | None) -> str:
    """A stored governing law ("droit anglais") in the reader's language ("English law")."""
    return provenance.governing_law_label(value) if value else ""


@register.filter
def field_label(name: str) -> str:
    """A metadata field name ("end_date") as the reader says it inside a sentence ("end
    date")."""
    label = str(provenance.FIELD_LABELS.get(name, name.replace("_", " ")))
    return label[:1].lower() + label[1:]


@register.filter
def field_labels(fields: list[str]) -> list[str]:
    """Metadata field names ("end_date") as the reader says them ("end date")."""
    return [field_label(name) for name in fields]


@register.filter
def signature_as_known(earliest: date | None, precision: str) -> str:
    """A signature date known to the month or the year, written so ("2004", "2017-02")."""
    return provenance.signature_as_known(earliest, precision) or ""


@register.filter
def clause_type_tags(stored: dict[str, float] | None) -> list[tuple[str, str, float]]:
    """A chunk's clause types as (key, label, confidence), most confident first."""
    return clause_types.clause_type_tags(stored)
