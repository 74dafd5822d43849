"""The only writes to the legal sources: imports, their index and their embeddings.

Each code is imported in one transaction: a bad file leaves the code as it was. Re-importing
updates rows in place (keyed by LEGIARTI id or number and start date), never duplicates them,
and never forgets a text: a version known by its dates only keeps a text an earlier import
stored for it.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext

from core.normalize import fold_accents
from sources.embedding import code_embedding_sync
from sources.importing import CodeRecord, ImportProblem, VersionRecord
from sources.models import ArticleVersion, LegalCode, VersionState
from sources.references import renvois_rebuild
from sources.renvois import EXTRACTOR_VERSION
from sources.selectors import today_paris

Progress = Callable[[str], None]
_UPDATED_FIELDS = (
    "number",
    "article_key",
    "source_id",
    "path",
    "text",
    "text_known",
    "state",
    "valid_from",
    "valid_to",
    "amended_by",
    "position",
)
_TEXT, _PATH = _UPDATED_FIELDS.index("text"), _UPDATED_FIELDS.index("path")


@dataclass
class ImportReport:
    code: str
    title: str
    articles: int
    versions: int
    created: int
    updated: int
    unchanged: int
    skipped: int
    renvois: int
    seconds: float
    # Stored versions in force that the new file no longer holds: closed at its date.
    closed: int = 0

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


@transaction.atomic
def code_import(
    *, record: CodeRecord, snapshot_date: dt.date | None = None, replace: bool = False
) -> ImportReport:
    """Store one code's versions (insert or update), re-index changed texts, extract their
    renvois. ``replace`` first drops what an import from another format stored (version keys
    of two formats never match: mixing them would put two texts in force at once)."""
    started = time.perf_counter()
    _check_format(record, replace=replace)
    code, _ = LegalCode.objects.update_or_create(
        slug=record.slug,
        defaults={
            "title": record.title,
            "legi_id": record.legi_id,
            "source_format": record.source_format,
        },
    )
    versions, skipped = _unique_versions(record.versions)
    existing = {v.version_key: v for v in ArticleVersion.objects.filter(code=code)}
    created, updated, changed_ids = _upsert(code, versions, existing)
    closed = _close_missing(code, versions, snapshot_date or record.snapshot_date)
    _index_texts(changed_ids)
    if code.renvois_version != EXTRACTOR_VERSION:
        changed_ids = list(ArticleVersion.objects.filter(code=code).values_list("id", flat=True))
        code.renvois_version = EXTRACTOR_VERSION
    renvois = renvois_rebuild(version_ids=changed_ids, code=code)
    _code_totals(code, versions, snapshot_date or record.snapshot_date)
    # Its progress row recounted: a changed text makes a "done" code "not queued" again.
    code_embedding_sync(code=code)
    return ImportReport(
        code=code.slug,
        title=code.title,
        articles=code.articles,
        versions=len(versions),
        created=created,
        updated=updated,
        unchanged=len(versions) - created - updated,
        skipped=skipped,
        renvois=renvois,
        seconds=round(time.perf_counter() - started, 2),
        closed=closed,
    )


def _check_format(record: CodeRecord, *, replace: bool) -> None:
    """A code imported from the other format is replaced only when asked (its rows go)."""
    previous = LegalCode.objects.filter(slug=record.slug).first()
    if previous is None or previous.source_format == record.source_format:
        return
    if not replace:
        raise ImportProblem(
            gettext(
                "%(code)s was imported from %(old)s; this file is %(new)s. "
                "Pass --replace to replace it (its versions are then all re-read)."
            )
            % {"code": previous.title, "old": previous.source_format, "new": record.source_format}
        )
    previous.article_versions.all().delete()
    previous.valid_from = None
    previous.save(update_fields=["valid_from"])


def _code_totals(code: LegalCode, versions: list[VersionRecord], snapshot: dt.date | None) -> None:
    stored = ArticleVersion.objects.filter(code=code)
    code.articles = stored.values("article_key").distinct().count()
    code.versions = stored.count()
    starts = [v.valid_from for v in versions if v.valid_from is not None]
    code.valid_from = min([*starts, *([code.valid_from] if code.valid_from else [])], default=None)
    code.snapshot_date = snapshot or code.snapshot_date
    code.imported_at = timezone.now()
    code.save()


def _close_missing(code: LegalCode, versions: list[VersionRecord], snapshot: dt.date | None) -> int:
    """A refresh ships the articles in force only (legi-data drops repealed ones): a stored
    open version the file no longer holds was repealed or renumbered since the last import.
    It ends on the new file's date (the first day it is known not in force; the exact day is
    not in the file), so it never stays in force for good."""
    keys = {v.version_key for v in versions}
    end = snapshot or today_paris()
    stale = ArticleVersion.objects.filter(code=code, valid_to__isnull=True).exclude(
        version_key__in=keys
    )
    rows = list(stale)
    for row in rows:
        row.valid_to = max(end, row.valid_from + dt.timedelta(days=1)) if row.valid_from else end
        row.state = VersionState.REPEALED
    ArticleVersion.objects.bulk_update(rows, ["valid_to", "state"], batch_size=1000)
    return len(rows)


def _unique_versions(versions: list[VersionRecord]) -> tuple[list[VersionRecord], int]:
    """Distinct keys (two annexes under one label get "#2"); empty windows dropped."""
    seen: dict[str, int] = {}
    kept: list[VersionRecord] = []
    skipped = 0
    for version in versions:
        if version.valid_from and version.valid_to and version.valid_to <= version.valid_from:
            skipped += 1
            continue
        count = seen.get(version.version_key, 0) + 1
        seen[version.version_key] = count
        if count > 1:
            version.version_key = f"{version.version_key}#{count}"
            version.article_key = f"{version.article_key}#{count}"
        kept.append(version)
    return kept, skipped


def _upsert(
    code: LegalCode, versions: list[VersionRecord], existing: dict[str, ArticleVersion]
) -> tuple[int, int, list[int]]:
    to_create: list[ArticleVersion] = []
    to_update: list[ArticleVersion] = []
    text_changed: list[ArticleVersion] = []
    for record in versions:
        row = existing.get(record.version_key)
        if row is None:
            row = ArticleVersion(code=code, version_key=record.version_key)
            _copy(record, row)
            to_create.append(row)
            continue
        if not record.text_known and row.text_known:
            # The source no longer ships this version's text: keep the one stored.
            record.text, record.text_known = row.text, True
        before = [getattr(row, name) for name in _UPDATED_FIELDS]
        _copy(record, row)
        if [getattr(row, name) for name in _UPDATED_FIELDS] != before:
            to_update.append(row)
            if before[_TEXT] != row.text or before[_PATH] != row.path:
                text_changed.append(row)
    ArticleVersion.objects.bulk_create(to_create, batch_size=1000)
    ArticleVersion.objects.bulk_update(to_update, _UPDATED_FIELDS, batch_size=1000)
    if text_changed:
        # A new text needs a new vector (and the old one must not be searched meanwhile).
        ArticleVersion.objects.filter(pk__in=[r.pk for r in text_changed]).update(
            embedding=None, embedding_model="", embedding_dim=None
        )
    changed = [row.pk for row in [*to_create, *text_changed]]
    return len(to_create), len(to_update), changed


def _copy(record: VersionRecord, row: ArticleVersion) -> None:
    for name in _UPDATED_FIELDS:
        setattr(row, name, getattr(record, name))


def _index_texts(version_ids: list[int]) -> None:
    """The French full-text vector of "Code > path > Article N" and the text, accents folded
    (the embedded Postgres has no ``unaccent``: queries are folded the same way)."""
    rows = ArticleVersion.objects.filter(id__in=version_ids).select_related("code")
    batch: list[ArticleVersion] = []
    for row in rows.iterator(chunk_size=1000):
        batch.append(row)
        if len(batch) == 1000:
            _index_batch(batch)
            batch = []
    _index_batch(batch)


def _index_batch(rows: list[ArticleVersion]) -> None:
    if not rows:
        return
    ids = [row.pk for row in rows]
    documents = [fold_accents(f"{row.heading}\n{row.text}") for row in rows]
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE sources_articleversion v SET search_vector = to_tsvector('french', d.doc) "
            "FROM unnest(%s::bigint[], %s::text[]) AS d(id, doc) WHERE v.id = d.id",
            [ids, documents],
        )
