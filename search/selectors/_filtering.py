"""The filters of search_data_room as queries: what passes, and what is kept out and why.

A contract whose filtered field is unknown is neither matched nor dropped: it is reported
in ``excluded_unknown``; one an amendment moved out of an end-date window, in
``excluded_by_amendment``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils.translation import gettext

from core.normalize import iso_date
from documents.extraction import contract_type_family, contract_type_label
from documents.models import Chunk, Document, Entity
from documents.provenance import precision_reason, reason_label
from search.filters import DateRange, SearchFilters, Vocabulary
from search.results import ExcludedUnknown
from search.selectors._common import SEARCHABLE, searchable_documents
from workspaces.models import Workspace


def vocabulary(*, workspace: Workspace, filters: SearchFilters) -> Vocabulary:
    """What validating ``filters`` needs, and no more: types and laws are few, but entities
    and contract ids can be thousands, so only the requested ones are looked up."""
    documents = Document.objects.filter(workspace=workspace, status__in=SEARCHABLE).order_by()
    entities = Entity.objects.filter(workspace=workspace, merged_into__isnull=True)
    requested_entities = dict(entities.filter(pk__in=filters.entity_ids).values_list("id", "name"))
    if len(requested_entities) < len(set(filters.entity_ids)):
        # An unknown id: the error lists every entity so the caller can pick the right one.
        requested_entities = dict(entities.values_list("id", "name"))
    # Types and laws only when filtered on (each is a scan of the workspace's contracts).
    return Vocabulary(
        entity_ids=requested_entities,
        contract_types=_with_families(
            documents.exclude(contract_type="").values_list("contract_type", flat=True).distinct()
        )
        if filters.contract_types
        else [],
        laws=sorted(
            documents.exclude(governing_law="").values_list("governing_law", flat=True).distinct()
        )
        if filters.governing_law
        else [],
        refs=set(documents.filter(ref__in=filters.document_ids).values_list("ref", flat=True))
        if filters.document_ids
        else set(),
    )


def _with_families(present: Iterable[str]) -> list[str]:
    """The types a filter may name: those present, and the families they belong to."""
    keys = set(present)
    parents = {entry.parent for key in keys if (entry := contract_type_label(key)) and entry.parent}
    return sorted(keys | parents)


def _members(requested: list[str]) -> set[str]:
    """A type filter selects the type and its family's members ("lease": commercial leases)."""
    return set().union(*(contract_type_family(key) for key in requested))


def _range_q(field: str, bounds: DateRange) -> Q:
    q = Q()
    if bounds.after:
        q &= Q(**{f"{field}__gte": bounds.after})
    if bounds.before:
        q &= Q(**{f"{field}__lte": bounds.before})
    return q


def _span_conditions(bounds: DateRange) -> tuple[Q, Q]:
    """A signature date known to the day, the month or the year is a span of days: it passes
    when the whole span is inside the bounds, fails when the whole span is outside, and is
    undecided ("date known only to the year") when the span straddles a bound."""
    passes, fails = Q(), Q(pk__in=[])
    if bounds.after:
        passes &= Q(signature_earliest__gte=bounds.after)
        fails |= Q(signature_latest__lt=bounds.after)
    if bounds.before:
        passes &= Q(signature_latest__lte=bounds.before)
        fails |= Q(signature_earliest__gt=bounds.before)
    undecided = Q(signature_earliest__isnull=True) | (~passes & ~fails)
    return passes, undecided


def _field_conditions(filters: SearchFilters) -> dict[str, tuple[Q, Q]]:
    """For each filtered field that can be unknown: (condition, field is unknown)."""
    conditions: dict[str, tuple[Q, Q]] = {}
    if filters.governing_law and (filters.governing_law.in_ or filters.governing_law.not_in):
        law = Q()
        if filters.governing_law.in_:
            law &= Q(governing_law__in=filters.governing_law.in_)
        if filters.governing_law.not_in:
            law &= ~Q(governing_law__in=filters.governing_law.not_in)
        # An unknown law is neither "in" nor "not in" anything: it is reported, not matched.
        conditions["governing_law"] = (law & ~Q(governing_law=""), Q(governing_law=""))
    if filters.signature_date and (filters.signature_date.after or filters.signature_date.before):
        conditions["signature_date"] = _span_conditions(filters.signature_date)
    if filters.end_date and (filters.end_date.after or filters.end_date.before):
        conditions["end_date"] = (
            _range_q("effective_end_date", filters.end_date),
            Q(effective_end_date__isnull=True),
        )
    return conditions


def _base(workspace: Workspace, filters: SearchFilters) -> QuerySet[Document]:
    documents = searchable_documents(workspace)
    for entity_id in filters.entity_ids:  # every entity must be a party
        documents = documents.filter(parties__entity_id=entity_id)
    if filters.contract_types:
        documents = documents.filter(contract_type__in=_members(filters.contract_types))
    if filters.document_ids:
        documents = documents.filter(ref__in=filters.document_ids)
    if filters.clause_types:  # any of the types, on at least one of its articles
        tagged = Chunk.objects.filter(
            document=OuterRef("pk"), clause_type_keys__overlap=filters.clause_types
        )
        documents = documents.filter(Exists(tagged))
    return documents.distinct() if filters.entity_ids else documents


@dataclass(frozen=True)
class Selection:
    """The contracts ``filters`` select in a workspace (see the module's docstring)."""

    filters: SearchFilters
    base: QuerySet[Document]  # filtered on the fields that are never unknown
    conditions: dict[str, tuple[Q, Q]]  # the fields that can be unknown

    @property
    def passing(self) -> QuerySet[Document]:
        passing_q = Q()
        for condition, _ in self.conditions.values():
            passing_q &= condition
        return self.base.filter(passing_q)

    @property
    def narrowed(self) -> bool:
        """Whether any filter applies (otherwise every searchable contract passes)."""
        filters = self.filters
        return bool(
            self.conditions
            or filters.entity_ids
            or filters.contract_types
            or filters.document_ids
            or filters.clause_types
        )

    def excluded_unknown(self) -> list[ExcludedUnknown]:
        if not self.conditions:
            return []
        pass_or_unknown_q, any_unknown_q = Q(), Q()
        for condition, unknown in self.conditions.values():
            pass_or_unknown_q &= condition | unknown
            any_unknown_q |= unknown
        # Thousands of contracts may lack a date: plain rows, no model instances or parties.
        rows = (
            self.base.filter(pass_or_unknown_q)
            .filter(any_unknown_q)
            .prefetch_related(None)
            .order_by("ref")
            .values(
                "ref",
                "title",
                "filename",
                "governing_law",
                "signature_earliest",
                "signature_latest",
                "signature_precision",
                "effective_end_date",
                "end_date_kind",
                *(f"provenance__{name}__reason" for name in _PROVENANCE_FIELDS.values()),
            )
        )
        excluded = []
        for row in rows:
            reasons = {
                name: reason
                for name in self.conditions
                if (reason := _undecided_reason(row, name, self.filters.signature_date)) is not None
            }
            excluded.append(
                ExcludedUnknown(
                    contract_id=row["ref"],
                    title=row["title"] or row["filename"],
                    unknown_fields=list(reasons),
                    reasons=reasons,
                )
            )
        return excluded

    def excluded_by_amendment(self) -> dict[str, str]:
        window = self.filters.end_date
        if "end_date" not in self.conditions or window is None:
            return {}
        others = Q()
        for name, (condition, _) in self.conditions.items():
            if name != "end_date":
                others &= condition
        moved = (
            self.base.filter(others)
            .filter(_range_q("end_date", window))
            .exclude(_range_q("effective_end_date", window))
            .exclude(effective_end_date__isnull=True)
            .prefetch_related(None)
            .order_by("ref")
        )
        return {
            ref: explanation
            or gettext("effective end %(date)s after an amendment")
            % {"date": iso_date(effective_end)}
            for ref, explanation, effective_end in moved.values_list(
                "ref", "effective_end_explanation", "effective_end_date"
            )
        }


def select(*, workspace: Workspace, filters: SearchFilters) -> Selection:
    return Selection(filters, _base(workspace, filters), _field_conditions(filters))


# The filter's field -> the field of Document.provenance that says why it is unknown.
_PROVENANCE_FIELDS = {
    "governing_law": "governing_law",
    "signature_date": "signature_date",
    "end_date": "end_date",
}


def _span_passes(earliest: date, latest: date, bounds: DateRange | None) -> bool:
    if bounds is None:
        return True
    return (bounds.after is None or earliest >= bounds.after) and (
        bounds.before is None or latest <= bounds.before
    )


def _undecided_reason(row: Mapping[str, Any], field: str, bounds: DateRange | None) -> str | None:
    """Why the filter on ``field`` could not decide for ``row``; None when it could (the row
    is in the selection for another field)."""
    stored_reason = row.get(f"provenance__{_PROVENANCE_FIELDS[field]}__reason")
    if field == "governing_law":
        known = bool(row["governing_law"])
    elif field == "signature_date":
        if row["signature_earliest"] is not None:
            # Known to the day, month or year: undecided only when its span straddles a bound
            # (the query lists rows that pass or are undecided).
            if _span_passes(row["signature_earliest"], row["signature_latest"], bounds):
                return None
            return precision_reason(row["signature_precision"])
        known = False
    else:
        if row["end_date_kind"] == "perpetual" and row["effective_end_date"] is None:
            return reason_label("perpetual")
        known = row["effective_end_date"] is not None
    if known:
        return None
    # No record at all: the document was read before provenance was kept.
    return reason_label(stored_reason) if stored_reason else reason_label("not_read")
