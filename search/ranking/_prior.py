"""The clause-type prior: fused hits whose clause types agree with the query's score higher.

The query's likely families come from the same classifier that tagged the chunks, applied to
the query embedding the vector arm already computed (cached); each hit's stored types are read
in one query. Only hits some arm retrieved are rescored: the prior reorders, it never adds.
"""

from __future__ import annotations

import json

import numpy as np

from documents.clause_types import classifier_for, family_prior
from search.ranking._common import ChunkHit
from search.ranking._vector import embed_query
from search.replica import read_connection

# The query's families by (classifier version, query): agents repeat queries (paging).
_FAMILIES: dict[tuple[str, str], dict[str, float]] = {}
_FAMILIES_MAX = 2048


def query_families(*, workspace_id: int, query: str) -> dict[str, float]:
    """The query's likelihood per clause family ({} without a classifier for the model)."""
    vector, _, model = embed_query(query)
    classifier = classifier_for(embedding_model=model, workspace_id=workspace_id)
    if classifier is None or len(vector) != classifier.dimension:
        return {}
    key = (classifier.version, query)
    families = _FAMILIES.get(key)
    if families is None:
        if len(_FAMILIES) >= _FAMILIES_MAX:
            _FAMILIES.clear()
        probabilities = classifier.probabilities(np.asarray([vector], dtype=np.float32), [query])
        classifier.with_cues(probabilities, [query])  # "indemnification of …" names its family
        # Kept in a local: another thread may clear the cache between the store and a read.
        families = _FAMILIES[key] = classifier.family_scores(probabilities[0])
    return families


def apply_prior(
    hits: list[ChunkHit], *, workspace_id: int, query: str, weight: float
) -> list[ChunkHit]:
    """Add ``weight`` · max over families of p_query · p_chunk to each hit's fused score
    (the chunk's stored family likelihoods), and re-sort."""
    if not hits or weight <= 0:
        return hits
    families = query_families(workspace_id=workspace_id, query=query)
    if not families:
        return hits
    with read_connection().cursor() as cursor:
        cursor.execute(
            "SELECT id, clause_families::text FROM documents_chunk WHERE id = ANY(%s)",
            [[hit.chunk_id for hit in hits]],
        )
        # Django has psycopg hand jsonb over as text.
        stored = {
            chunk_id: json.loads(types) if types else {} for chunk_id, types in cursor.fetchall()
        }
    for hit in hits:
        hit.clause_prior = family_prior(families, stored.get(hit.chunk_id, {}))
        hit.score += weight * hit.clause_prior
    return sorted(hits, key=lambda hit: (-hit.score, hit.chunk_id))
