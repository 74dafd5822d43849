"""describe_data_room: what an agent needs to know to fill search filters."""

from __future__ import annotations

from collections import Counter

from django.db.models import Count, Max, Min, QuerySet

from documents.models import Document, DuplicateGroup, Entity
from documents.normalize import iso_date
from search.results import (
    DataRoomDescription,
    DateSpan,
    EntitySummary,
    UnknownCounts,
    ValueCount,
)
from search.selectors._common import SEARCHABLE
from workspaces.models import Workspace


def describe_data_room(*, workspace: Workspace) -> DataRoomDescription:
    """What an agent needs to fill filters: entities, types, laws, date ranges, counts."""
    all_documents = Document.objects.filter(workspace=workspace)
    documents = all_documents.filter(status__in=SEARCHABLE)
    entities = (
        Entity.objects.filter(workspace=workspace, merged_into__isnull=True)
        .annotate(contracts=Count("parties__document", distinct=True))
        .order_by("name")
    )
    ranges = documents.aggregate(
        signature_min=Min("signature_date"),
        signature_max=Max("signature_date"),
        end_min=Min("effective_end_date"),
        end_max=Max("effective_end_date"),
    )
    statuses = Counter(all_documents.values_list("status", flat=True))
    return DataRoomDescription(
        workspace=workspace.slug,
        title=workspace.title,
        contracts=documents.count(),
        documents_by_status=dict(sorted(statuses.items())),
        entities=[
            EntitySummary(
                entity_id=entity.pk,
                name=entity.name,
                aliases=entity.aliases,
                siren=entity.siren or None,
                siren_valid=entity.siren_valid,
                contracts=entity.contracts,
            )
            for entity in entities
        ],
        contract_types=_counts(documents, "contract_type"),
        governing_laws=_counts(documents, "governing_law"),
        unknown=UnknownCounts(
            contract_type=documents.filter(contract_type="").count(),
            governing_law=documents.filter(governing_law="").count(),
            signature_date=documents.filter(signature_date__isnull=True).count(),
            end_date=documents.filter(effective_end_date__isnull=True).count(),
        ),
        signature_date=DateSpan(
            min=iso_date(ranges["signature_min"]), max=iso_date(ranges["signature_max"])
        ),
        end_date=DateSpan(min=iso_date(ranges["end_min"]), max=iso_date(ranges["end_max"])),
        amendments=documents.filter(is_amendment=True).count(),
        duplicate_groups=DuplicateGroup.objects.filter(workspace=workspace).count(),
    )


def _counts(documents: QuerySet[Document], field: str) -> list[ValueCount]:
    rows = documents.exclude(**{field: ""}).values(field).annotate(n=Count("id")).order_by(field)
    return [ValueCount(value=row[field], contracts=row["n"]) for row in rows]
