"""Documents of a workspace, their chunks, parties (entities), links and duplicate groups.

Every table carries ``workspace_id`` and is under row-level security (see workspaces.rls).
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.utils import timezone
from pgvector.django import VectorField

from workspaces.models import Workspace


class DocumentStatus(models.TextChoices):
    STORED = "stored", "Stored"
    PARSED = "parsed", "Parsed"
    CHUNKED = "chunked", "Chunked"
    EMBEDDED = "embedded", "Embedded"
    FAILED = "failed", "Failed"


class Document(models.Model):
    """One original file (or one data-room entry), kept byte for byte, and what we read in it."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="documents")
    # The short reference used everywhere as contract_id: tools, UI, citations.
    ref = models.CharField(max_length=32)
    title = models.CharField(max_length=500, blank=True)
    filename = models.CharField(max_length=500, help_text="Original file name.")
    other_filenames = models.JSONField(
        default=list, blank=True, help_text="Same bytes uploaded again under these names."
    )
    source = models.CharField(max_length=20, default="upload")  # upload | dataroom | archive
    archive_path = models.CharField(max_length=1000, blank=True)
    media_type = models.CharField(max_length=10, blank=True)
    sha256 = models.CharField(max_length=64)
    size_bytes = models.BigIntegerField(default=0)
    original = models.CharField(max_length=500, help_text="Storage name of the original bytes.")

    status = models.CharField(
        max_length=10, choices=DocumentStatus.choices, default=DocumentStatus.STORED
    )
    status_reason = models.TextField(blank=True)
    needs_ocr = models.BooleanField(default=False)

    text = models.TextField(blank=True)
    page_starts = models.JSONField(default=list, blank=True)
    language = models.CharField(max_length=5, blank=True)

    raw_metadata = models.JSONField(default=dict, blank=True)
    contract_type = models.CharField(max_length=120, blank=True)
    signature_date = models.DateField(null=True, blank=True)
    end_date = models.DateField(null=True, blank=True, help_text="The contract's own end date.")
    end_date_source = models.CharField(max_length=20, blank=True)  # metadata | text
    effective_end_date = models.DateField(
        null=True, blank=True, help_text="End date after amendments."
    )
    effective_end_explanation = models.TextField(blank=True)
    governing_law = models.CharField(max_length=80, blank=True)
    governing_law_source = models.CharField(max_length=20, blank=True)
    amounts = models.JSONField(default=list, blank=True)
    warnings = models.JSONField(default=list, blank=True)
    is_amendment = models.BooleanField(default=False)
    amendment_number = models.PositiveIntegerField(null=True, blank=True)
    amendment_hints = models.JSONField(default=dict, blank=True)
    text_fingerprint = models.CharField(max_length=64, blank=True, db_index=True)
    # MinHash signature of the text, kept so duplicate detection never re-reads every text.
    minhash = models.JSONField(default=list, blank=True)

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["workspace", "ref"], name="document_ref_unique"),
            models.UniqueConstraint(fields=["workspace", "sha256"], name="document_sha_unique"),
        ]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["workspace", "status"]),
            models.Index(fields=["workspace", "effective_end_date"]),
            models.Index(fields=["workspace", "signature_date"]),
        ]

    def __str__(self) -> str:
        return f"{self.ref} {self.title or self.filename}"


class Entity(models.Model):
    """A party (company or person), one per normalised name in the workspace."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="entities")
    key = models.CharField(max_length=300, help_text="Normalised name: legal form, case, accents.")
    name = models.CharField(max_length=300)
    aliases = models.JSONField(default=list, blank=True)
    siren = models.CharField(max_length=9, blank=True)
    siren_valid = models.BooleanField(null=True)
    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="merged"
    )

    class Meta:
        verbose_name_plural = "entities"
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["workspace", "key"], name="entity_key_unique")
        ]

    def __str__(self) -> str:
        return self.name


class DocumentParty(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="parties")
    entity = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="parties")
    name_as_written = models.CharField(max_length=300)
    siren_as_written = models.CharField(max_length=40, blank=True)
    ordinal = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ("ordinal",)
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["document", "ordinal"], name="party_ordinal_unique")
        ]

    def __str__(self) -> str:
        return self.name_as_written


class Chunk(models.Model):
    """One article/section (or a part of a long one) with its pages and offsets."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
    ordinal = models.PositiveIntegerField()
    kind = models.CharField(max_length=10)  # preamble | article | part
    heading = models.CharField(max_length=500, blank=True)
    article_ref = models.CharField(max_length=40, blank=True)
    text = models.TextField()
    index_text = models.TextField(help_text="Text prefixed with contract context, as indexed.")
    char_start = models.PositiveIntegerField()
    char_end = models.PositiveIntegerField()
    page_start = models.PositiveIntegerField(default=1)
    page_end = models.PositiveIntegerField(default=1)
    # Dimension-free column: the model (and so the dimension) is a setting. Each dimension in
    # use gets its own partial HNSW index (documents.embeddings.vector_index_ensure).
    embedding = VectorField(null=True, blank=True)
    embedding_model = models.CharField(max_length=200, blank=True)
    embedding_dim = models.PositiveSmallIntegerField(null=True, blank=True)
    # Weighted, accent-folded full-text vector (documents.textsearch), GIN-indexed.
    search_vector = SearchVectorField(null=True, blank=True)

    class Meta:
        ordering = ("document_id", "ordinal")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["document", "ordinal"], name="chunk_ordinal_unique")
        ]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["workspace", "embedding_model"]),
            GinIndex(fields=["search_vector"], name="chunk_search_vector_gin"),
        ]

    def __str__(self) -> str:
        return f"{self.document_id}#{self.ordinal} {self.heading}"


class LinkKind(models.TextChoices):
    AMENDS = "amends", "Amends"


class DocumentLink(models.Model):
    """An amendment and the contract it modifies, with why we linked them."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    source = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="links_out")
    target = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="links_in")
    kind = models.CharField(max_length=20, choices=LinkKind.choices, default=LinkKind.AMENDS)
    explanation = models.TextField()

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["source", "target", "kind"], name="link_unique")
        ]

    def __str__(self) -> str:
        return f"{self.source_id} {self.kind} {self.target_id}"


class DuplicateKind(models.TextChoices):
    EXACT = "exact", "Same text"
    NEAR = "near", "Near-duplicate text"
    TRANSLATION = "translation", "Translation"


class DuplicateGroup(models.Model):
    """Documents that are copies of each other. Shown to the lawyer, never auto-deleted."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=20, choices=DuplicateKind.choices)
    reason = models.TextField()
    score = models.FloatField(default=1.0)
    documents = models.ManyToManyField(Document, through="DuplicateMember", related_name="+")

    def __str__(self) -> str:
        return f"{self.kind} group {self.pk}"


class DuplicateMember(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    group = models.ForeignKey(DuplicateGroup, on_delete=models.CASCADE, related_name="members")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["group", "document"], name="duplicate_member_unique")
        ]

    def __str__(self) -> str:
        return f"{self.group_id}:{self.document_id}"


class IngestBatch(models.Model):
    """One ingestion request (an upload, a ZIP, a data-room import): progress and errors.

    Files refused before storage (wrong type, too large, unsafe ZIP member) are listed in
    ``errors``; stored documents report their own status.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    label = models.CharField(max_length=500)
    document_ids = models.JSONField(default=list, blank=True)
    processed = models.PositiveIntegerField(default=0)
    errors = models.JSONField(
        default=list, blank=True
    )  # [{"file": ..., "code": ..., "error": ...}]
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return self.label
