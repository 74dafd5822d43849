"""Tagging chunks with clause types (a workspace step): from their stored embeddings and
words, and for a long article from its windows too (encoded here, never stored)."""

from __future__ import annotations

import json

import numpy as np
from django.db import connection, transaction

from core.embeddings import embedding_model_name, get_encoder
from documents.clause_types import article_probabilities, classifier_for, cue_text
from documents.models import Chunk
from workspaces.models import Workspace
from workspaces.tenancy import workspace_scope


@transaction.atomic
def chunks_tag_clause_types(*, workspace_id: int, limit: int = 128) -> int:
    """Tag up to ``limit`` chunks embedded with the active model and not yet tagged by the
    current classifier. Returns how many were tagged (0: none left, or no classifier for the
    model: an encoder nothing ships for, never trained). A round encodes the windows of its
    long articles (128 articles: a few hundred windows, seconds on a CPU)."""
    model = embedding_model_name()
    classifier = classifier_for(embedding_model=model, workspace_id=workspace_id)
    if classifier is None:
        return 0
    rows = list(
        Chunk.objects.filter(
            workspace_id=workspace_id, embedding_model=model, embedding__isnull=False
        )
        .exclude(clause_types_version=classifier.version)
        .select_for_update(skip_locked=True)
        .order_by("id")
        .values_list("id", "embedding", "heading", "text")[:limit]
    )
    if not rows:
        return 0
    vectors = np.asarray([row[1] for row in rows], dtype=np.float32)
    if vectors.shape[1] != classifier.dimension:
        return 0  # another model's vectors under the same name: never read them wrongly
    texts = [row[3] for row in rows]
    probabilities = article_probabilities(classifier, texts, vectors, get_encoder().encode)
    classifier.with_cues(probabilities, [cue_text(row[2], row[3]) for row in rows])
    tags = classifier.tags(probabilities)
    families = [classifier.family_scores(row) for row in probabilities]
    with connection.cursor() as cursor:
        # One statement per batch; the keys array is what the any-of filter's GIN index reads.
        cursor.execute(
            "UPDATE documents_chunk AS c SET clause_types = v.types::jsonb,"
            " clause_type_keys = ARRAY(SELECT jsonb_object_keys(v.types::jsonb) ORDER BY 1),"
            " clause_families = v.families::jsonb, clause_types_version = %s"
            " FROM unnest(%s::bigint[], %s::text[], %s::text[]) AS v(id, types, families)"
            " WHERE c.id = v.id",
            [
                classifier.version,
                [row[0] for row in rows],
                [_json(tagged) for tagged in tags],
                [_json(scores) for scores in families],
            ],
        )
    return len(rows)


def workspace_tag_clause_types(*, workspace: Workspace) -> int:
    """Tag every chunk of the workspace the current classifier has not tagged, round after
    round (each its own scoped transaction); returns how many were tagged. For a retrained
    classifier (``train_clause_types --retag``) or a reused eval index."""
    tagged = 0
    while True:
        with workspace_scope(workspace):
            done = chunks_tag_clause_types(workspace_id=workspace.pk)
        if not done:
            return tagged
        tagged += done


def _json(tagged: dict[str, float]) -> str:
    return json.dumps(tagged, sort_keys=True)
