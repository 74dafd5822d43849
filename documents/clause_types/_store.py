"""The stored classifiers: the one a firm's chunks and queries are read with, and saving one."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Q, Subquery

from documents.clause_types._classifier import Classifier
from documents.clause_types._shipped import shipped_classifier
from documents.models import ClauseClassifier
from workspaces.models import Firm, Workspace

# Loaded classifiers by (row id, version): a retrained one has a new version, so a stale
# entry is simply never asked for again.
_LOADED: dict[tuple[int, str], Classifier] = {}


def classifier_for(*, embedding_model: str, workspace_id: int | None) -> Classifier | None:
    """The classifier for the model of the workspace's firm, else the install's trained one
    (None as the workspace: that one only), else the one shipped for the model; None when
    none is (an encoder nothing ships for, never trained: chunks are then left untagged).
    One small query per call (the firm found in it)."""
    owner = Q(firm__isnull=True)
    if workspace_id is not None:
        firm = Workspace.objects.filter(pk=workspace_id).values("firm_id")
        owner |= Q(firm_id=Subquery(firm))
    row = (
        ClauseClassifier.objects.filter(embedding_model=embedding_model)
        .filter(owner)
        .order_by("firm_id")  # a firm's own (non-null) first: Postgres sorts nulls last
        .values_list("pk", "version")
        .first()
    )
    if row is None:
        return shipped_classifier(embedding_model)
    key = (row[0], row[1])
    if key not in _LOADED:
        stored = ClauseClassifier.objects.get(pk=row[0])
        _LOADED[key] = Classifier.from_stored(
            stored.keys,
            bytes(stored.weights),
            stored.thresholds,
            stored.lexical_bits,
            stored.presence_thresholds,
        )
    return _LOADED[key]


@transaction.atomic
def clause_classifier_save(
    *,
    classifier: Classifier,
    embedding_model: str,
    firm_id: int | None,
    report: dict[str, Any],
) -> ClauseClassifier:
    """Store a trained classifier, replacing the previous one for the same model and firm in
    one transaction (a failed training never reaches here, so the previous one stays)."""
    row, _ = ClauseClassifier.objects.update_or_create(
        embedding_model=embedding_model,
        firm=Firm.objects.get(pk=firm_id) if firm_id is not None else None,
        defaults={
            "keys": list(classifier.keys),
            "weights": classifier.to_bytes(),
            "thresholds": [float(t) for t in classifier.thresholds],
            "version": classifier.version,
            "lexical_bits": classifier.lexical_bits,
            "presence_thresholds": []
            if classifier.presence is None
            else [round(float(t), 3) for t in classifier.presence],
            "report": report,
        },
    )
    return row
