"""The worker embeds the codes' articles in rounds, after ``make run`` has opened the login:
each round embeds for at most ``ROUND_SECONDS`` (well under the task timeout) and queues the
next while versions are left. The library belongs to no workspace: its tasks name
``LIBRARY`` (0), the fair queue's "no firm", which takes its turn like a firm."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from sources.embedding import code_embedding_mark_queued, code_embedding_round
from sources.models import EMBEDDING_STALE_SECONDS, CodeEmbedding, EmbeddingStatus, LegalCode
from workspaces.tasks import enqueue

LIBRARY = 0
ROUND_SECONDS = 60.0
# A queued or running row that has not moved for this long is queued again (its worker died,
# or its task was lost): a round writes the row after every batch of a few seconds.
STALE_SECONDS = EMBEDDING_STALE_SECONDS


def embed_code(*, workspace_id: int, code_id: int) -> int:
    """One round for the code (gone since it was queued: nothing to do); returns how many
    versions it embedded."""
    code = LegalCode.objects.filter(pk=code_id).first()
    if code is None:
        return 0
    embedded = code_embedding_round(code=code, seconds=ROUND_SECONDS)
    status = CodeEmbedding.objects.filter(code=code).values_list("status", flat=True).first()
    # Nothing embedded: another round holds what is left, and queues its own next round.
    if embedded and status != EmbeddingStatus.DONE:
        _enqueue_round(code.pk)
    return embedded


def _enqueue_round(code_id: int) -> None:
    enqueue(
        embed_code,
        workspace_id=LIBRARY,
        scoped=False,
        queue=settings.LEXROOM_EMBED_QUEUE,
        task_name=f"embed-code-{code_id}",
        code_id=code_id,
    )


@transaction.atomic
def code_embedding_queue(*, code: LegalCode, force: bool = False) -> CodeEmbedding:
    """Queue the embedding of ``code``'s versions lacking a vector (none: marked done, nothing
    queued). A code already queued or running, whose row moved in the last ``STALE_SECONDS``,
    is left to that round unless ``force`` (``make run``, before its worker starts: whatever
    says "running" then was left by a killed worker, and resumes where it stopped)."""
    state = CodeEmbedding.objects.filter(code=code).first()
    busy = {EmbeddingStatus.QUEUED, EmbeddingStatus.RUNNING}
    fresh = timezone.now() - dt.timedelta(seconds=STALE_SECONDS)
    if not force and state and state.status in busy and (state.updated_at or fresh) > fresh:
        return state
    state = code_embedding_mark_queued(code=code)
    if state.status == EmbeddingStatus.QUEUED:
        _enqueue_round(code.pk)
    return state
