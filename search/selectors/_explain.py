"""Why a contract is in the results: one line per filter it passes, in the caller's language."""

from __future__ import annotations

from django.utils.translation import gettext

from core.normalize import iso_date
from documents.clause_types import clause_type_label
from documents.models import Document
from documents.provenance import contract_type_label, governing_law_label, signature_as_known
from search.filters import DateRange, LawFilter, SearchFilters


def matched_filters(document: Document, filters: SearchFilters, names: dict[int, str]) -> list[str]:
    """Why ``document`` passes ``filters``; ``names`` gives the entities' names."""
    matched = [
        gettext("party: %(name)s") % {"name": names.get(entity_id, entity_id)}
        for entity_id in filters.entity_ids
    ]
    if filters.contract_types:
        matched.append(
            gettext("type %(type)s (∈ %(allowed)s)")
            % {
                "type": contract_type_label(document.contract_type),
                "allowed": ", ".join(contract_type_label(key) for key in filters.contract_types),
            }
        )
    if filters.governing_law and (filters.governing_law.in_ or filters.governing_law.not_in):
        matched.append(
            gettext("law %(law)s (%(rule)s)")
            % {
                "law": governing_law_label(document.governing_law),
                "rule": _law_rule(filters.governing_law),
            }
        )
    signed = signature_as_known(document.signature_earliest, document.signature_precision)
    end = iso_date(document.effective_end_date)
    for message, value, bounds in (
        (gettext("signature %(date)s (%(rule)s)"), signed, filters.signature_date),
        (gettext("end %(date)s (%(rule)s)"), end, filters.end_date),
    ):
        if bounds and value and (bounds.after or bounds.before):
            matched.append(message % {"date": value, "rule": _date_rule(bounds)})
    if filters.document_ids:
        matched.append(gettext("contract %(id)s requested") % {"id": document.ref})
    if filters.clause_types:
        matched.append(
            gettext("articles of clause type %(types)s")
            % {"types": ", ".join(clause_type_label(key) for key in filters.clause_types)}
        )
    return matched


def _law_rule(law: LawFilter) -> str:
    rule = []
    if law.in_:
        rule.append(f"∈ {', '.join(governing_law_label(value) for value in law.in_)}")
    if law.not_in:
        rule.append(f"∉ {', '.join(governing_law_label(value) for value in law.not_in)}")
    return "; ".join(rule)


def _date_rule(bounds: DateRange) -> str:
    after, before = iso_date(bounds.after), iso_date(bounds.before)
    if after and before:
        return gettext(">= %(after)s and <= %(before)s") % {"after": after, "before": before}
    return f">= {after}" if after else f"<= {before}"
