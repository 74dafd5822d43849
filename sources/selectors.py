"""Reads of the legal sources. Every path (pages, tools, the agent, evals) goes through
:func:`versions_in_force`: the date window is a predicate of the SQL, never a filter applied
in Python after ranking.
"""

from __future__ import annotations

import datetime as dt
import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from django.db.models import F, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext

from sources.models import (
    EMBEDDING_STALE_SECONDS,
    ArticleVersion,
    CodeEmbedding,
    EmbeddingStatus,
    LegalCode,
)
from sources.numbers import normalise_article_number, number_sort_key

PARIS = ZoneInfo("Europe/Paris")
CLOSE_MATCHES = 5


class SourceError(ValueError):
    """A question the library cannot answer, said so the caller can correct it."""

    kind = "invalid_arguments"

    def __init__(self, message: str, **details: object) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class CodeNotFound(SourceError):
    kind = "not_found"


class ArticleNotFound(SourceError):
    kind = "not_found"


def today_paris() -> dt.date:
    return timezone.now().astimezone(PARIS).date()


def in_force_q(as_of: dt.date) -> Q:
    """The versions whose window ``[valid_from, valid_to)`` holds ``as_of``."""
    started = Q(valid_from__isnull=True) | Q(valid_from__lte=as_of)
    not_ended = Q(valid_to__isnull=True) | Q(valid_to__gt=as_of)
    code_existed = Q(code__valid_from__isnull=True) | Q(code__valid_from__lte=as_of)
    return started & not_ended & code_existed


def versions_in_force(
    *,
    as_of: dt.date,
    codes: Sequence[LegalCode] | None = None,
    include_repealed: bool = False,
) -> QuerySet[ArticleVersion]:
    """The one version of each article in force on ``as_of``.

    ``include_repealed`` adds, for an article no longer in force on that date, its last
    version (the one a lawyer reads to see what the repealed article said).
    """
    rows = ArticleVersion.objects.all()
    if codes is not None:
        rows = rows.filter(code__in=codes)
    if not include_repealed:
        return rows.filter(in_force_q(as_of))
    started = Q(valid_from__isnull=True) | Q(valid_from__lte=as_of)
    latest = (
        rows.filter(started)
        .filter(Q(code__valid_from__isnull=True) | Q(code__valid_from__lte=as_of))
        # The latest start first; an unknown start (NULL) is the oldest, never the latest.
        .order_by("code_id", "article_key", F("valid_from").desc(nulls_last=True))
        .distinct("code_id", "article_key")
        .values("id")
    )
    return ArticleVersion.objects.filter(id__in=latest)


def codes_all() -> QuerySet[LegalCode]:
    return LegalCode.objects.order_by("title")


def code_get(name: str) -> LegalCode:
    """A code by its slug, its title or its LEGITEXT id ("code civil", "code-civil")."""
    from django.utils.text import slugify

    wanted = str(name or "").strip()
    code = (
        LegalCode.objects.filter(
            Q(slug=slugify(wanted)) | Q(title__iexact=wanted) | Q(legi_id=wanted)
        ).first()
        if wanted
        else None
    )
    if code is None:
        known = list(LegalCode.objects.values_list("slug", flat=True))
        close = difflib.get_close_matches(slugify(wanted), known, n=CLOSE_MATCHES, cutoff=0.5)
        raise CodeNotFound(
            gettext("Unknown code %(name)r.") % {"name": wanted[:80]},
            close_matches=close,
            allowed=sorted(known),
        )
    return code


def codes_get(names: Iterable[str]) -> list[LegalCode]:
    return [code_get(name) for name in names]


def as_of_check(code: LegalCode, as_of: dt.date) -> None:
    """Asking before the code existed is an error, not an empty answer."""
    if code.valid_from is not None and as_of < code.valid_from:
        raise SourceError(
            gettext("%(code)s has no article in force before %(date)s.")
            % {"code": code.title, "date": code.valid_from.isoformat()},
            field="as_of",
            earliest=code.valid_from.isoformat(),
        )


def snapshot_warning(code: LegalCode, as_of: dt.date) -> str:
    """Said with every answer on a date the imported texts may not know about."""
    if code.snapshot_date is None:
        return gettext("%(code)s: the date of the imported texts is not known.") % {
            "code": code.title
        }
    if as_of > code.snapshot_date:
        return gettext(
            "%(code)s was imported as it stood on %(date)s: later amendments are not known."
        ) % {"code": code.title, "date": code.snapshot_date.isoformat()}
    return ""


def snapshot_warnings(codes: Iterable[LegalCode], as_of: dt.date) -> list[str]:
    """:func:`snapshot_warning` of each code that has one."""
    return [w for w in (snapshot_warning(code, as_of) for code in codes) if w]


def article_get(
    *, code: LegalCode, number: str, as_of: dt.date, include_repealed: bool = False
) -> ArticleVersion:
    """The version of ``code``'s article ``number`` (as a lawyer writes it) on ``as_of``."""
    wanted = normalise_article_number(number) or " ".join(str(number).split())
    if not wanted:
        raise SourceError(gettext("Give an article number, e.g. L121-3."), field="number")
    as_of_check(code, as_of)
    # The version in force first; only then, if asked, the last one of a repealed article.
    for repealed in (False, True) if include_repealed else (False,):
        rows = versions_in_force(as_of=as_of, codes=[code], include_repealed=repealed)
        # The stored form first (the (code, number) index), then any letter case ("l121-3").
        for match in (Q(number=wanted), Q(number__iexact=wanted)):
            version = rows.filter(match).select_related("code").first()
            if version is not None:
                return version
    raise _article_missing(code, wanted, as_of)


def _article_missing(code: LegalCode, wanted: str, as_of: dt.date) -> ArticleNotFound:
    versions = ArticleVersion.objects.filter(code=code, number__iexact=wanted)
    windows = [
        {"valid_from": _iso(v.valid_from), "valid_to": _iso(v.valid_to), "state": v.state}
        for v in versions.order_by("valid_from")[:20]
    ]
    if windows:
        message = gettext("%(code)s, article %(number)s, was not in force on %(date)s.")
    else:
        message = gettext("%(code)s has no article %(number)s.")
    numbers = versions_in_force(as_of=as_of, codes=[code]).values_list("number", flat=True)
    prefix = wanted[:4]
    pool = [n for n in numbers if n.startswith(prefix[:2])] or list(numbers)
    close = difflib.get_close_matches(wanted, pool, n=CLOSE_MATCHES, cutoff=0.6)
    return ArticleNotFound(
        message % {"code": code.title, "number": wanted, "date": as_of.isoformat()},
        close_matches=sorted(close, key=number_sort_key),
        versions=windows,
    )


def article_history(version: ArticleVersion) -> list[ArticleVersion]:
    """Every version of the article, oldest first (unknown starts first)."""
    rows = ArticleVersion.objects.filter(code_id=version.code_id, article_key=version.article_key)
    return sorted(rows, key=lambda v: (v.valid_from is not None, v.valid_from or dt.date.min))


def _iso(day: dt.date | None) -> str | None:
    return day.isoformat() if day else None


def versions_existing(version_ids: Iterable[int]) -> set[int]:
    """Which of these versions are still stored (a re-import with --replace drops rows)."""
    return set(ArticleVersion.objects.filter(pk__in=list(version_ids)).values_list("pk", flat=True))


def version_texts(version_ids: Iterable[int]) -> list[str]:
    """The stored texts of these versions (the quotes of an answer are checked against them)."""
    return list(
        ArticleVersion.objects.filter(pk__in=list(version_ids)).values_list("text", flat=True)
    )


@dataclass(frozen=True)
class EmbeddingProgress:
    """The meaning search's readiness, over the codes whose versions are not all embedded."""

    done: int
    total: int
    working: bool  # some code queued or being embedded: the page looks again
    not_queued: list[str]  # titles of codes nothing embeds (imported with --no-embed)
    failed: list[str]


def codes_embedding_progress() -> EmbeddingProgress | None:
    """None when every code with a progress row is embedded (one query)."""
    rows = list(
        CodeEmbedding.objects.exclude(status=EmbeddingStatus.DONE)
        .select_related("code")
        .order_by("code__title")
    )
    if not rows:
        return None
    working = {EmbeddingStatus.QUEUED, EmbeddingStatus.RUNNING}
    stalled_before = timezone.now() - dt.timedelta(seconds=EMBEDDING_STALE_SECONDS)

    def moving(row: CodeEmbedding) -> bool:
        last = row.updated_at or row.started_at or row.queued_at
        return row.status in working and last is not None and last >= stalled_before

    return EmbeddingProgress(
        done=sum(row.done for row in rows),
        total=sum(row.total for row in rows),
        working=any(moving(row) for row in rows),
        # Nothing embeds a code not queued, nor one whose worker stopped without a word.
        not_queued=[
            row.code.title
            for row in rows
            if row.status == EmbeddingStatus.PENDING or (row.status in working and not moving(row))
        ],
        failed=[row.code.title for row in rows if row.status == EmbeddingStatus.FAILED],
    )
