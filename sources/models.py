"""Public legal sources: the French codes, one row per version of each article.

These are the firm's library, the same for every workspace: no ``workspace_id``, no row-level
security. Users only read them; the import commands alone write them
(``sources.services.codes_import``).

Dates follow Légifrance: a version is in force on ``[valid_from, valid_to)``; an unknown
start (``valid_from`` NULL) means "since before the imported history", an open end
(``valid_to`` NULL) "until further notice". Every query goes through
``sources.selectors.versions_in_force``, which puts that window in the SQL.
"""

from __future__ import annotations

from typing import ClassVar

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.utils.translation import gettext_lazy as _
from pgvector.django import VectorField


class SourceFormat(models.TextChoices):
    LEGI_JSON = "legi-json", _("LEGI JSON (DILA, via SocialGouv legi-data)")
    CODES_JSONL = "codes-jsonl", _("Codes JSONL with a history index")


class LegalCode(models.Model):
    slug = models.SlugField(max_length=120, unique=True)
    title = models.CharField(max_length=300)
    # LEGITEXT… at Légifrance, when the source gives it.
    legi_id = models.CharField(max_length=30, blank=True, db_index=True)
    source_format = models.CharField(max_length=20, choices=SourceFormat.choices)
    # The earliest date any of its articles is known in force: asking before it is an error.
    valid_from = models.DateField(null=True, blank=True)
    # The day the imported texts were current: later amendments are unknown to Lexroom.
    snapshot_date = models.DateField(null=True, blank=True)
    imported_at = models.DateTimeField(null=True, blank=True)
    articles = models.PositiveIntegerField(default=0)
    versions = models.PositiveIntegerField(default=0)
    # The extractor that found the stored renvois: an import by a newer one re-reads them all.
    renvois_version = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering: ClassVar[list[str]] = ["title"]

    def __str__(self) -> str:
        return self.title


class VersionState(models.TextChoices):
    IN_FORCE = "VIGUEUR", _("In force")
    FUTURE = "VIGUEUR_DIFF", _("In force at a later date")
    MODIFIED = "MODIFIE", _("Modified")
    REPEALED = "ABROGE", _("Repealed")
    REPEALED_FUTURE = "ABROGE_DIFF", _("Repealed at a later date")
    TRANSFERRED = "TRANSFERE", _("Moved to another number")
    ANNULLED = "ANNULE", _("Annulled")
    OTHER = "AUTRE", _("Other")


class ArticleVersion(models.Model):
    code = models.ForeignKey(LegalCode, on_delete=models.CASCADE, related_name="article_versions")
    # Normalised: "L. 121-3", "art. L 121-3" → "L121-3" (sources.numbers).
    number = models.CharField(max_length=40)
    # One article across its versions: LEGI's article cid, else the number.
    article_key = models.CharField(max_length=60)
    # Unique in the code: the LEGIARTI id, else "number@valid_from".
    version_key = models.CharField(max_length=80)
    source_id = models.CharField(max_length=30, blank=True)
    path = models.JSONField(default=list)
    text = models.TextField(blank=True)
    # False: the version is known by its dates only (the source ships the current text).
    text_known = models.BooleanField(default=True)
    state = models.CharField(max_length=20, choices=VersionState.choices)
    valid_from = models.DateField(null=True, blank=True)
    valid_to = models.DateField(null=True, blank=True)
    amended_by = models.CharField(max_length=300, blank=True)
    position = models.PositiveIntegerField(default=0)
    search_vector = SearchVectorField(null=True, blank=True)
    embedding = VectorField(null=True, blank=True)
    embedding_model = models.CharField(max_length=200, blank=True)
    embedding_dim = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["code", "position", "valid_from"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["code", "version_key"], name="article_version_key"),
            models.CheckConstraint(
                condition=models.Q(valid_to__isnull=True)
                | models.Q(valid_from__isnull=True)
                | models.Q(valid_to__gt=models.F("valid_from")),
                name="article_version_window",
            ),
        ]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["code", "number"]),
            models.Index(fields=["code", "article_key"]),
            GinIndex(fields=["search_vector"], name="article_search_vector_gin"),
        ]

    def __str__(self) -> str:
        return f"{self.code.title}, art. {self.number}"

    @property
    def heading(self) -> str:
        """The prefix indexed with the text: "Code > Partie > ... > Article N"."""
        return " > ".join([self.code.title, *self.path, f"Article {self.number}"])


class ReferenceKind(models.TextChoices):
    ARTICLE = "article", _("Article")
    RANGE = "range", _("Range of articles")
    TEXT = "text", _("Law, decree or ordinance")


class Renvoi(models.Model):
    """A reference written in an article's text, as extracted (never the target row: the
    target is resolved at the date asked, to the version then in force)."""

    source = models.ForeignKey(ArticleVersion, on_delete=models.CASCADE, related_name="renvois")
    raw = models.CharField(max_length=400)
    start = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=ReferenceKind.choices)
    # The target code's slug ("" for a text), and its name as written when not in the catalogue.
    target_code = models.SlugField(max_length=120, blank=True)
    target_code_named = models.CharField(max_length=200, blank=True)
    target_number = models.CharField(max_length=40, blank=True)
    # For a range: its last article.
    target_number_end = models.CharField(max_length=40, blank=True)
    precision = models.CharField(max_length=120, blank=True)
    unresolved_text = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["source", "start"]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["target_code", "target_number"]),
        ]

    def __str__(self) -> str:
        return self.raw


class CaseLawResponse(models.Model):
    """A response of a case-law site, kept so a repeated question costs the site nothing.

    Public data, the same for every firm: no ``workspace_id``. ``key`` is the SHA-256 of the
    URL; ``fetched_at`` gives the answer's age (shown with every result).
    """

    key = models.CharField(max_length=64, unique=True)
    url = models.TextField()
    status = models.PositiveSmallIntegerField()
    content_type = models.CharField(max_length=200, blank=True)
    body = models.BinaryField()
    fetched_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return self.url[:120]


class CaseLawHit(models.Model):
    """A decision's metadata as a search returned it, so ``get_decision`` can name its court,
    formation, ECLI and linked conclusions without searching again."""

    decision_id = models.CharField(max_length=200, unique=True)
    source = models.CharField(max_length=20)  # arianeweb | opendata
    metadata = models.JSONField()
    seen_at = models.DateTimeField()

    def __str__(self) -> str:
        return self.decision_id


class EmbeddingStatus(models.TextChoices):
    # Some versions lack a vector and nothing is queued (imported with --no-embed).
    PENDING = "pending", _("Not queued")
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


# A queued or running row that has not moved for this long has no worker behind it (killed,
# or django-q gave up on its task): queuing it again resumes it.
EMBEDDING_STALE_SECONDS = 300


class CodeEmbedding(models.Model):
    """How far the worker is in embedding one code's article versions for the meaning search:
    what the codes page and ``embed_legal_codes --wait`` show. ``done`` and ``total`` are
    counted from the versions themselves (with a text; ``done``: a vector of ``model``) after
    every batch, so the row never drifts from what the search sees."""

    code = models.OneToOneField(LegalCode, on_delete=models.CASCADE, related_name="embedding")
    status = models.CharField(
        max_length=10, choices=EmbeddingStatus.choices, default=EmbeddingStatus.PENDING
    )
    model = models.CharField(max_length=200, blank=True)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The last batch written: a "running" row whose worker was killed stops moving.
    updated_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    def __str__(self) -> str:
        return f"{self.code_id}: {self.status} {self.done}/{self.total}"
