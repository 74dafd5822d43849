"""describe_data_room: what an agent needs to know to fill search filters."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Max, Min, Q, QuerySet

from core.normalize import iso_date
from documents.clause_types import clause_type_label, family_of
from documents.models import Document, DuplicateGroup, Entity
from documents.provenance import contract_type_label
from search.replica import read_connection
from search.results import (
    ClauseTypeCount,
    DataRoomDescription,
    DateSpan,
    EntitySummary,
    TypeCount,
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
    totals = _totals(documents)
    statuses = all_documents.values("status").annotate(n=Count("pk")).order_by("status")
    clause_types, untagged = _clause_type_counts(workspace)
    return DataRoomDescription(
        workspace=workspace.slug,
        title=workspace.title,
        contracts=totals["contracts"],
        documents_by_status={row["status"]: row["n"] for row in statuses},
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
        contract_types=[
            TypeCount(
                value=row.value, contracts=row.contracts, label=contract_type_label(row.value)
            )
            for row in _counts(documents, "contract_type")
        ],
        governing_laws=_counts(documents, "governing_law"),
        unknown=UnknownCounts(
            contract_type=totals["unknown_type"],
            governing_law=totals["unknown_law"],
            signature_date=totals["unknown_signature"],
            end_date=totals["unknown_end"],
            signature_date_partial=totals["partial_signature"],
            end_date_perpetual=totals["perpetual"],
        ),
        signature_date=DateSpan(
            min=iso_date(totals["signature_min"]), max=iso_date(totals["signature_max"])
        ),
        end_date=DateSpan(min=iso_date(totals["end_min"]), max=iso_date(totals["end_max"])),
        amendments=totals["amendments"],
        duplicate_groups=DuplicateGroup.objects.filter(workspace=workspace).count(),
        clause_types=clause_types,
        articles_untagged=untagged,
    )


def _clause_type_counts(workspace: Workspace) -> tuple[list[ClauseTypeCount], int]:
    """Articles and contracts per clause type among searchable contracts, and the articles
    not tagged yet, in one pass (a NULL key row carries the untagged count)."""
    with read_connection().cursor() as cursor:
        cursor.execute(
            "SELECT k.key, count(*), count(DISTINCT c.document_id) FROM documents_chunk c"
            " JOIN documents_document d ON d.id = c.document_id"
            " LEFT JOIN LATERAL unnest(c.clause_type_keys) AS k(key) ON true"
            " WHERE c.workspace_id = %s AND d.status = ANY(%s)"
            "  AND (k.key IS NOT NULL OR c.clause_types_version = '')"
            " GROUP BY k.key ORDER BY k.key",
            [workspace.pk, list(SEARCHABLE)],
        )
        rows = cursor.fetchall()
    counts = [
        ClauseTypeCount(
            key=key,
            label=clause_type_label(key),
            family=family_of(key),
            articles=articles,
            contracts=contracts,
        )
        for key, articles, contracts in rows
        if key is not None
    ]
    untagged = next((articles for key, articles, _ in rows if key is None), 0)
    return counts, untagged


def _counts(documents: QuerySet[Document], field: str) -> list[ValueCount]:
    rows = documents.exclude(**{field: ""}).values(field).annotate(n=Count("id")).order_by(field)
    return [ValueCount(value=row[field], contracts=row["n"]) for row in rows]


def _totals(documents: QuerySet[Document]) -> dict[str, Any]:
    """One pass over the searchable contracts for every count and range (the search page
    describes the room on each load)."""
    return documents.aggregate(
        contracts=Count("pk"),
        signature_min=Min("signature_earliest"),
        signature_max=Max("signature_latest"),
        end_min=Min("effective_end_date"),
        end_max=Max("effective_end_date"),
        unknown_type=Count("pk", filter=Q(contract_type="")),
        unknown_law=Count("pk", filter=Q(governing_law="")),
        unknown_signature=Count("pk", filter=Q(signature_earliest__isnull=True)),
        partial_signature=Count("pk", filter=Q(signature_precision__in=["month", "year"])),
        # A perpetual contract's end is known not to exist: counted apart, not as unknown.
        unknown_end=Count(
            "pk", filter=Q(effective_end_date__isnull=True) & ~Q(end_date_kind="perpetual")
        ),
        perpetual=Count("pk", filter=Q(end_date_kind="perpetual", effective_end_date__isnull=True)),
        amendments=Count("pk", filter=Q(is_amendment=True)),
    )
