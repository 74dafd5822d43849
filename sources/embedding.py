"""Vectors of the articles: "Code > path > Article N" and the text, with the configured model.

The same encoder as the contracts (``core.embeddings``); a version whose stored model is
not the configured one is re-embedded, and a version with no vector is only left out of the
vector arm of the search, never out of the library.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from django.db import transaction
from django.db.models import Q

from core.embeddings import get_encoder
from sources.models import ArticleVersion, LegalCode

Progress = Callable[[int, int], None]
BATCH = 256


def article_passage(version: ArticleVersion) -> str:
    return f"{version.heading}\n{version.text}"


def versions_to_embed(codes: Sequence[LegalCode] | None = None) -> Q:
    model = get_encoder().name
    stale = Q(embedding__isnull=True) | ~Q(embedding_model=model)
    wanted = Q(text_known=True) & stale
    return wanted & Q(code__in=codes) if codes is not None else wanted


def versions_embed(
    *, codes: Sequence[LegalCode] | None = None, progress: Progress | None = None
) -> int:
    """Embed every version of ``codes`` (all when None) lacking a vector of the current model.

    Batches commit one by one: an interrupted run keeps what it did and resumes.
    """
    encoder = get_encoder()
    pending = list(
        ArticleVersion.objects.filter(versions_to_embed(codes))
        .order_by("id")
        .values_list("id", flat=True)
    )
    done = 0
    for start in range(0, len(pending), BATCH):
        ids = pending[start : start + BATCH]
        rows = list(ArticleVersion.objects.filter(id__in=ids).select_related("code"))
        vectors = encoder.encode([article_passage(row) for row in rows])
        for row, vector in zip(rows, vectors, strict=True):
            row.embedding = [float(x) for x in vector]
            row.embedding_model = encoder.name
            row.embedding_dim = encoder.dimension
        with transaction.atomic():
            ArticleVersion.objects.bulk_update(
                rows, ["embedding", "embedding_model", "embedding_dim"], batch_size=BATCH
            )
        done += len(rows)
        if progress is not None:
            progress(done, len(pending))
    return done
