"""A firm admin's review of the firm's search adapters: reads (the candidate, the adapter in
use, what the candidate would change) and the two writes (approve, roll back), audited.

Firm admins (``User.is_firm_admin``, as for the admin pages and the firm-wide scope) review
their own firm's adapters only: anyone else, and another firm's adapter, get
:class:`AdapterNotFound`, the 404 of a missing page. ``SearchAdapter`` is outside RLS (a
firm-wide row of numbers), so every read here names the firm.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.db.models import Max, Min, QuerySet
from django.utils import timezone

from documents.models import Chunk
from search.models import RelevanceJudgment, SearchAdapter
from search.ranking import adapter_override, rank_chunks
from workspaces.audit import audit_record
from workspaces.models import User, Workspace

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

# The preview: the firm's most recently rated queries, ranked with and without the candidate,
# their top results compared (each query is two rankings without rerank: bounded work).
PREVIEW_QUERIES = 10
PREVIEW_DEPTH = 5


class AdapterNotFound(Exception):
    """Not a firm admin, another firm's adapter, or none: the same 404."""


@dataclass(frozen=True)
class PreviewHit:
    chunk_id: int
    ref: str
    heading: str


@dataclass(frozen=True)
class QueryChange:
    """One rated query's top results with the adapter in use (``before``) and the candidate."""

    workspace: str
    query: str
    before: list[PreviewHit]
    after: list[PreviewHit]

    @property
    def changed(self) -> int:
        """Results of the candidate's top that were not in the top before."""
        before = {hit.chunk_id for hit in self.before}
        return sum(1 for hit in self.after if hit.chunk_id not in before)

    @property
    def moved(self) -> int:
        """Positions whose result differs (a reordering counts too)."""
        pairs = zip(self.before, self.after, strict=False)
        return sum(1 for old, new in pairs if old.chunk_id != new.chunk_id) + abs(
            len(self.before) - len(self.after)
        )


@dataclass
class AdapterReview:
    model: str
    in_use: SearchAdapter | None
    candidate: SearchAdapter | None
    history: list[SearchAdapter]
    raters: list[dict[str, Any]] = field(default_factory=list)
    changes: list[QueryChange] = field(default_factory=list)


def _firm_admin(user: User) -> None:
    if not (user.is_active and user.is_firm_admin):
        raise AdapterNotFound()


def _adapters(user: User, model: str) -> QuerySet[SearchAdapter]:
    return SearchAdapter.objects.filter(firm_id=user.firm_id, embedding_model=model)


def adapter_in_use(*, user: User, model: str) -> SearchAdapter | None:
    """The adapter the ranking uses for the user's firm and ``model`` (as
    :mod:`search.ranking._adapter` picks it)."""
    return (
        _adapters(user, model)
        .filter(approved_at__isnull=False, rolled_back_at__isnull=True)
        .order_by("-approved_at")
        .first()
    )


def _matrix(adapter: SearchAdapter | None) -> NDArray[np.float32] | None:
    if adapter is None:
        return None
    import numpy as np

    weights = np.frombuffer(bytes(adapter.weights), dtype=np.float32)
    return weights.reshape(adapter.dimension, adapter.dimension)


def _recent_queries(user: User, model: str, limit: int) -> list[tuple[int, str]]:
    """(workspace id, query) of the firm's most recently rated queries (in the request's
    scope: a firm admin's is every workspace of the firm)."""
    rows = (
        RelevanceJudgment.objects.filter(workspace__firm_id=user.firm_id, embedding_model=model)
        .values("workspace_id", "query_sha256")
        .annotate(last=Max("updated_at"), text=Min("query"))
        .order_by("-last")[:limit]
    )
    return [(row["workspace_id"], row["text"]) for row in rows]


def _top(workspace_id: int, query: str, matrix: Any, depth: int) -> list[int]:
    with adapter_override(matrix):
        hits = rank_chunks(workspace_id=workspace_id, query=query, document_ids=None,
                           use_rerank=False)  # fmt: skip
    return [hit.chunk_id for hit in hits[:depth]]


def adapter_changes(
    *,
    user: User,
    candidate: SearchAdapter,
    in_use: SearchAdapter | None,
    queries: int = PREVIEW_QUERIES,
    depth: int = PREVIEW_DEPTH,
) -> list[QueryChange]:
    """The firm's recently rated queries whose top ``depth`` results the candidate changes,
    most changed first (queries it leaves alone are left out)."""
    recent = _recent_queries(user, candidate.embedding_model, queries)
    before_matrix, after_matrix = _matrix(in_use), _matrix(candidate)
    tops = [
        (workspace_id, query, _top(workspace_id, query, before_matrix, depth),
         _top(workspace_id, query, after_matrix, depth))
        for workspace_id, query in recent
    ]  # fmt: skip
    chunk_ids = {chunk for _w, _q, before, after in tops for chunk in before + after}
    described = {
        row["pk"]: PreviewHit(row["pk"], row["document__ref"], row["heading"])
        for row in Chunk.objects.filter(pk__in=chunk_ids).values("pk", "document__ref", "heading")
    }
    slugs = dict(Workspace.objects.filter(pk__in={w for w, *_ in tops}).values_list("pk", "slug"))
    changes = [
        QueryChange(
            workspace=slugs.get(workspace_id, ""),
            query=query,
            before=[described[c] for c in before if c in described],
            after=[described[c] for c in after if c in described],
        )
        for workspace_id, query, before, after in tops
    ]
    changes = [change for change in changes if change.moved]
    return sorted(changes, key=lambda change: (-change.changed, -change.moved))


def _raters(user: User, adapter: SearchAdapter | None) -> list[dict[str, Any]]:
    """The candidate's per-rater counts, named (a firm admin sees the firm's users anyway)."""
    if adapter is None:
        return []
    raters = adapter.metrics.get("raters") or []
    emails = dict(
        User.objects.filter(firm_id=user.firm_id, pk__in=[r["user_id"] for r in raters])
        .values_list("pk", "email")
    )  # fmt: skip
    return [{**rater, "email": emails.get(rater["user_id"], "—")} for rater in raters]


def adapter_review(*, user: User, model: str, preview: bool = True) -> AdapterReview:
    """What a firm admin decides on: the candidate (the latest fit not yet approved), the
    adapter in use, the history; with ``preview``, the candidate's effect on rated queries."""
    _firm_admin(user)
    adapters = _adapters(user, model)
    in_use = adapter_in_use(user=user, model=model)
    candidate = adapters.filter(approved_at__isnull=True).order_by("-trained_at").first()
    review = AdapterReview(
        model=model,
        in_use=in_use,
        candidate=candidate,
        history=list(adapters.filter(approved_at__isnull=False).order_by("-approved_at")),
        raters=_raters(user, candidate),
    )
    if preview and candidate is not None:
        review.changes = adapter_changes(user=user, candidate=candidate, in_use=in_use)
    return review


@transaction.atomic
def search_adapter_approve(*, user: User, adapter_id: int) -> SearchAdapter:
    """Put the candidate ``adapter_id`` in use for its firm; audited. An adapter already
    approved is left as it is (a form sent twice)."""
    _firm_admin(user)
    adapter = (
        SearchAdapter.objects.select_for_update()
        .filter(firm_id=user.firm_id, pk=adapter_id)
        .first()
    )
    if adapter is None:
        raise AdapterNotFound()
    if adapter.approved_at is not None:
        return adapter
    previous = adapter_in_use(user=user, model=adapter.embedding_model)
    adapter.approved_at = timezone.now()
    adapter.save(update_fields=["approved_at"])
    audit_record(
        firm=user.firm,
        actor=user,
        action="search.adapter_approved",
        target=f"{adapter.embedding_model}#{adapter.pk}",
        details={
            "adapter_id": adapter.pk,
            "replaces": previous.pk if previous else None,
            "held_out": _held_out(adapter),
        },
    )
    return adapter


@transaction.atomic
def search_adapter_roll_back(
    *, user: User, model: str
) -> tuple[SearchAdapter, SearchAdapter | None] | None:
    """Withdraw the adapter in use for ``model``: the previous approved one is used again,
    or none. Returns (withdrawn, now in use), or None when no adapter was in use; audited."""
    _firm_admin(user)
    # The firm's adapters for the model, locked: two rollbacks at once withdraw one each.
    list(_adapters(user, model).select_for_update().values_list("pk", flat=True))
    withdrawn = adapter_in_use(user=user, model=model)
    if withdrawn is None:
        return None
    withdrawn.rolled_back_at = timezone.now()
    withdrawn.save(update_fields=["rolled_back_at"])
    now_in_use = adapter_in_use(user=user, model=model)
    audit_record(
        firm=user.firm,
        actor=user,
        action="search.adapter_rolled_back",
        target=f"{model}#{withdrawn.pk}",
        details={"adapter_id": withdrawn.pk, "now_in_use": now_in_use.pk if now_in_use else None},
    )
    return withdrawn, now_in_use


def _held_out(adapter: SearchAdapter) -> dict[str, float]:
    return {k: v for k, v in adapter.metrics.items() if k.startswith("held_out_ndcg")}
