"""Vectors of the articles: "Code > path > Article N" and the text, with the configured model.

The same encoder as the contracts (``core.embeddings``); a version whose stored model is
not the configured one is re-embedded, and a version with no vector is only left out of the
vector arm of the search, never out of the library: the full-text search answers while a code
is embedded (``sources.ranking.vectors_cover``).

A code is embedded in rounds of batches (``code_embedding_round``): by the worker after
``code_embedding_queue`` (``sources.tasks``), or here by ``embed_legal_codes --here`` and
``import_legal_codes``. Each batch claims its versions with ``FOR UPDATE SKIP LOCKED`` and
commits alone: two rounds never embed the same version, a killed one loses one batch at most,
and its code's :class:`~sources.models.CodeEmbedding` row says how far it got.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core.embeddings import Encoder, embedding_model_name, get_encoder
from sources.models import ArticleVersion, CodeEmbedding, EmbeddingStatus, LegalCode

Progress = Callable[[int, int], None]  # (versions with a vector, versions with a text)
# A batch is sized to take about this long, so progress moves at least this often.
BATCH_SECONDS = 3.0
MIN_BATCH, MAX_BATCH = 4, 256


def article_passage(version: ArticleVersion) -> str:
    return f"{version.heading}\n{version.text}"


def versions_to_embed(codes: Sequence[LegalCode] | None = None) -> Q:
    model = embedding_model_name()
    stale = Q(embedding__isnull=True) | ~Q(embedding_model=model)
    wanted = Q(text_known=True) & stale
    return wanted & Q(code__in=codes) if codes is not None else wanted


def code_embedding_counts(code: LegalCode) -> tuple[int, int]:
    """(versions with a vector of the configured model, versions with a text)."""
    with_text = ArticleVersion.objects.filter(code=code, text_known=True)
    done = with_text.filter(embedding_model=embedding_model_name()).count()
    return done, with_text.count()


def _state(code: LegalCode) -> CodeEmbedding:
    state, _ = CodeEmbedding.objects.get_or_create(code=code)
    return state


def code_embedding_sync(*, code: LegalCode) -> CodeEmbedding:
    """Recount the code's row after an import: "done" only while every version with a text
    has a vector of the configured model (a re-import with ``--no-embed`` that changed texts
    leaves it "not queued", never a stale "done")."""
    state = _state(code)
    state.done, state.total = code_embedding_counts(code)
    state.model = embedding_model_name()
    if state.done == state.total:
        state.status, state.error = EmbeddingStatus.DONE, ""
    elif state.status == EmbeddingStatus.DONE:
        state.status = EmbeddingStatus.PENDING
    state.save()
    return state


def code_embedding_mark_queued(*, code: LegalCode) -> CodeEmbedding:
    """The row of a code whose embedding is queued: "queued" while versions lack a vector
    (a row left "running" by a killed worker too: it resumes), else "done" as it was."""
    state = code_embedding_sync(code=code)
    if state.status == EmbeddingStatus.DONE:
        return state
    state.status, state.error = EmbeddingStatus.QUEUED, ""
    state.queued_at = state.updated_at = timezone.now()
    state.started_at = state.finished_at = None
    state.save()
    return state


def _batch_size(seconds_per_version: float | None) -> int:
    if seconds_per_version is None:
        return MIN_BATCH * 2
    wanted = int(BATCH_SECONDS / max(seconds_per_version, 1e-4))
    return max(MIN_BATCH, min(MAX_BATCH, wanted))


@transaction.atomic
def _embed_batch(code: LegalCode, encoder: Encoder, size: int) -> int:
    """Embed up to ``size`` versions no other round holds; 0 when none is left to claim."""
    rows = list(
        ArticleVersion.objects.filter(versions_to_embed([code]))
        .select_for_update(skip_locked=True, of=("self",))
        .select_related("code")
        .order_by("id")[:size]
    )
    if not rows:
        return 0
    vectors = encoder.encode([article_passage(row) for row in rows])
    for row, vector in zip(rows, vectors, strict=True):
        row.embedding = [float(x) for x in vector]
        row.embedding_model = encoder.name
        row.embedding_dim = encoder.dimension
    ArticleVersion.objects.bulk_update(rows, ["embedding", "embedding_model", "embedding_dim"])
    return len(rows)


def _record(code: LegalCode, **fields: object) -> CodeEmbedding:
    state = _state(code)
    for name, value in fields.items():
        setattr(state, name, value)
    state.updated_at = timezone.now()
    state.save()
    return state


def code_embedding_round(
    *, code: LegalCode, seconds: float | None = None, progress: Progress | None = None
) -> int:
    """Embed ``code``'s versions lacking a vector, batch by batch, for about ``seconds`` (None:
    until none is left); returns how many this round embedded. The row is "done" once every
    version has its vector, "failed" with the error if the encoder raised (raised again)."""
    encoder = get_encoder()
    done, total = code_embedding_counts(code)
    state = _state(code)
    started = state.started_at if state.status == EmbeddingStatus.RUNNING else None
    _record(code, status=EmbeddingStatus.RUNNING, started_at=started or timezone.now(),
            finished_at=None, done=done, total=total, model=encoder.name)  # fmt: skip
    deadline = None if seconds is None else time.monotonic() + seconds
    embedded, pace = 0, None
    try:
        while done < total:
            began = time.monotonic()
            count = _embed_batch(code, encoder, _batch_size(pace))
            if not count:
                break  # what is left is held by another round
            pace = (time.monotonic() - began) / count
            embedded += count
            done, total = code_embedding_counts(code)
            _record(code, done=done, total=total)
            if progress is not None:
                progress(done, total)
            if deadline is not None and time.monotonic() >= deadline:
                break
    except Exception as exc:
        _record(code, status=EmbeddingStatus.FAILED, error=str(exc)[:2000])
        raise
    if done >= total:
        _record(code, status=EmbeddingStatus.DONE, finished_at=timezone.now(), error="")
    return embedded


def versions_embed(
    *, codes: Sequence[LegalCode] | None = None, progress: Progress | None = None
) -> int:
    """Embed here every version of ``codes`` (all when None) lacking a vector of the current
    model, code by code; ``progress`` gets each code's (done, total) after every batch."""
    embedded = 0
    for code in codes if codes is not None else list(LegalCode.objects.order_by("title")):
        embedded += code_embedding_round(code=code, progress=progress)
    return embedded
