"""Documents of a workspace, their chunks, parties (entities), links and duplicate groups.

Every table carries ``workspace_id`` and is under row-level security (see workspaces.rls).
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from pgvector.django import VectorField

from workspaces.models import Firm, Workspace


class DocumentStatus(models.TextChoices):
    STORED = "stored", _("Stored")
    PARSED = "parsed", _("Parsed")
    CHUNKED = "chunked", _("Chunked")
    EMBEDDED = "embedded", _("Indexed")
    FAILED = "failed", _("Failed")


class Document(models.Model):
    """One original file (or one data-room entry), kept byte for byte, and what we read in it."""

    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="documents", verbose_name=_("workspace")
    )
    # The short reference used everywhere as contract_id: tools, UI, citations.
    ref = models.CharField(_("contract id"), max_length=32)
    title = models.CharField(_("title"), max_length=500, blank=True)
    filename = models.CharField(_("file name"), max_length=500, help_text=_("Original file name."))
    other_filenames = models.JSONField(
        _("other file names"),
        default=list,
        blank=True,
        help_text=_("Same bytes uploaded again under these names."),
    )
    # upload | dataroom | archive
    source = models.CharField(_("source"), max_length=20, default="upload")
    archive_path = models.CharField(_("path in the archive"), max_length=1000, blank=True)
    media_type = models.CharField(_("file type"), max_length=10, blank=True)
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    size_bytes = models.BigIntegerField(_("size (bytes)"), default=0)
    original = models.CharField(
        _("original"), max_length=500, help_text=_("Storage name of the original bytes.")
    )

    status = models.CharField(
        _("status"), max_length=10, choices=DocumentStatus.choices, default=DocumentStatus.STORED
    )
    status_reason = models.TextField(_("status reason"), blank=True)
    needs_ocr = models.BooleanField(_("needs OCR"), default=False)
    # Pages read by OCR: {"pages", "confidence" (page -> mean word confidence, 0-100),
    # "mean_confidence", "engine", "layer" (the searchable PDF stored beside the original),
    # "seconds"}; empty when the text is the file's own.
    ocr = models.JSONField(_("OCR"), default=dict, blank=True)

    text = models.TextField(blank=True)
    page_starts = models.JSONField(default=list, blank=True)
    language = models.CharField(_("language"), max_length=5, blank=True)

    raw_metadata = models.JSONField(_("metadata as received"), default=dict, blank=True)
    # A key of the bilingual vocabulary (documents.extraction.CONTRACT_TYPES); the title as
    # written beside it.
    contract_type = models.CharField(_("contract type"), max_length=120, blank=True)
    contract_type_title = models.CharField(_("title as written"), max_length=500, blank=True)
    signature_date = models.DateField(
        _("signature date"), null=True, blank=True, help_text=_("Only when known to the day.")
    )
    # A date known only to the month or the year is kept as such: filters compare its whole
    # span (earliest..latest) and list it as undecided when the span straddles a bound.
    signature_precision = models.CharField(_("signature date precision"), max_length=5, blank=True)
    signature_earliest = models.DateField(_("signed on or after"), null=True, blank=True)
    signature_latest = models.DateField(_("signed on or before"), null=True, blank=True)
    effective_date = models.DateField(_("effective date"), null=True, blank=True)
    end_date = models.DateField(
        _("end date"), null=True, blank=True, help_text=_("The contract's own end date.")
    )
    # Machine values, shown translated on the pages: metadata | text
    end_date_source = models.CharField(_("end date source"), max_length=20, blank=True)
    # date | perpetual (runs until terminated: no end date, and not unknown) | "" (unknown)
    end_date_kind = models.CharField(_("end date kind"), max_length=10, blank=True)
    # {"automatic": bool, "term_months": int | None, "notice_days": int | None}, {} if none
    renewal = models.JSONField(_("renewal"), default=dict, blank=True)
    effective_end_date = models.DateField(
        _("effective end date"), null=True, blank=True, help_text=_("End date after amendments.")
    )
    effective_end_explanation = models.TextField(_("effective end explanation"), blank=True)
    governing_law = models.CharField(_("governing law"), max_length=80, blank=True)
    governing_law_source = models.CharField(_("governing law source"), max_length=20, blank=True)
    amounts = models.JSONField(_("amounts"), default=list, blank=True)
    # SIREN / SIRET / RCS numbers read in the text, checksums verified:
    # [{"kind", "number", "valid", "city", "quote"}]
    identifiers = models.JSONField(_("identifiers"), default=list, blank=True)
    # Where each metadata value came from: field -> {"value", "source" (metadata | text),
    # "quote", "start", "end", "confidence", "rule", "alternatives"} or, when the text did
    # not tell, {"value": None, "reason": code, "quote"}. See documents.provenance.
    provenance = models.JSONField(_("provenance"), default=dict, blank=True)
    warnings = models.JSONField(_("warnings"), default=list, blank=True)
    is_amendment = models.BooleanField(_("amendment"), default=False)
    amendment_number = models.PositiveIntegerField(_("amendment number"), null=True, blank=True)
    amendment_hints = models.JSONField(_("amendment hints"), default=dict, blank=True)
    text_fingerprint = models.CharField(
        _("text fingerprint"), max_length=64, blank=True, db_index=True
    )
    # MinHash signature of the text, kept so duplicate detection never re-reads every text.
    minhash = models.JSONField(default=list, blank=True)

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("created by"),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("document")
        verbose_name_plural = _("documents")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["workspace", "ref"], name="document_ref_unique"),
            models.UniqueConstraint(fields=["workspace", "sha256"], name="document_sha_unique"),
        ]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["workspace", "status"]),
            models.Index(fields=["workspace", "effective_end_date"]),
            models.Index(fields=["workspace", "signature_date"]),
            models.Index(fields=["workspace", "signature_earliest", "signature_latest"]),
        ]

    def __str__(self) -> str:
        return f"{self.ref} {self.display_title}"

    @property
    def display_title(self) -> str:
        """What pages, exports and tools call the document: its title (the data room's, else
        the title line read at the head of its text), else its file name."""
        return self.title or self.filename


class Entity(models.Model):
    """A party (company or person), one per normalised name in the workspace."""

    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="entities", verbose_name=_("workspace")
    )
    key = models.CharField(
        _("key"), max_length=300, help_text=_("Normalised name: legal form, case, accents.")
    )
    name = models.CharField(_("name"), max_length=300)
    aliases = models.JSONField(_("aliases"), default=list, blank=True)
    siren = models.CharField(_("SIREN"), max_length=9, blank=True)
    siren_valid = models.BooleanField(_("valid SIREN"), null=True)
    merged_into = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="merged",
        verbose_name=_("merged into"),
    )

    class Meta:
        verbose_name = _("entity")
        verbose_name_plural = _("entities")
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
    # A key of documents.extraction's role vocabulary (licensor, lessee...) and the defined
    # term the contract uses ("the Licensee", « le Preneur »), when the text names them.
    role = models.CharField(max_length=40, blank=True)
    defined_term = models.CharField(max_length=120, blank=True)
    ordinal = models.PositiveSmallIntegerField(default=0)

    class Meta:
        verbose_name = _("party")
        verbose_name_plural = _("parties")
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
    # use gets its own partial HNSW index (documents.vector_index.vector_index_ensure).
    embedding = VectorField(null=True, blank=True)
    embedding_model = models.CharField(max_length=200, blank=True)
    # The lowest mean OCR confidence (0-100) of the OCR'd pages it spans; null: text layer.
    ocr_confidence = models.FloatField(null=True, blank=True)
    embedding_dim = models.PositiveSmallIntegerField(null=True, blank=True)
    # Weighted, accent-folded full-text vector (documents.textsearch), GIN-indexed.
    search_vector = SearchVectorField(null=True, blank=True)
    # Clause types (documents.clause_types) from the stored embedding: {key: confidence}, the
    # keys again as an array for the GIN-indexed any-of filter, each family's likelihood (the
    # ranking prior reads it, untagged families too) and the classifier's version.
    clause_types = models.JSONField(default=dict, blank=True)
    clause_families = models.JSONField(default=dict, blank=True)
    clause_type_keys = ArrayField(models.CharField(max_length=64), default=list, blank=True)
    clause_types_version = models.CharField(max_length=32, blank=True)

    class Meta:
        verbose_name = _("passage")
        verbose_name_plural = _("passages")
        ordering = ("document_id", "ordinal")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["document", "ordinal"], name="chunk_ordinal_unique")
        ]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["workspace", "embedding_model"]),
            GinIndex(fields=["search_vector"], name="chunk_search_vector_gin"),
            GinIndex(fields=["clause_type_keys"], name="chunk_clause_type_keys_gin"),
        ]

    def __str__(self) -> str:
        return f"{self.document_id}#{self.ordinal} {self.heading}"


class ClauseClassifier(models.Model):
    """A trained clause-type classifier for one embedding model: the shipped one (no firm)
    or a firm's own, retrained from its labels. No tenant data: weights and scores only."""

    embedding_model = models.CharField(max_length=200)
    firm = models.ForeignKey(Firm, null=True, blank=True, on_delete=models.CASCADE)
    keys = models.JSONField()
    weights = models.BinaryField()
    thresholds = models.JSONField()
    version = models.CharField(max_length=32)
    # The hashed words' columns are 2**lexical_bits rows after the embedding's (0: none).
    lexical_bits = models.PositiveSmallIntegerField(default=0)
    # Per type, the confidence an article needs for its contract to have the type (empty:
    # the thresholds'; see documents.clause_types._presence).
    presence_thresholds = models.JSONField(default=list, blank=True)
    report = models.JSONField(default=dict, blank=True)
    trained_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("clause-type classifier")
        verbose_name_plural = _("clause-type classifiers")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(
                fields=["embedding_model", "firm"],
                name="clause_classifier_unique",
                nulls_distinct=False,
            )
        ]

    def __str__(self) -> str:
        return f"{self.embedding_model} ({self.firm_id or 'default'})"


class LinkKind(models.TextChoices):
    AMENDS = "amends", _("Amends")


class DocumentLink(models.Model):
    """An amendment and the contract it modifies, with why we linked them."""

    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="+", verbose_name=_("workspace")
    )
    source = models.ForeignKey(
        Document, on_delete=models.CASCADE, related_name="links_out", verbose_name=_("amendment")
    )
    target = models.ForeignKey(
        Document,
        on_delete=models.CASCADE,
        related_name="links_in",
        verbose_name=_("amended contract"),
    )
    kind = models.CharField(
        _("kind"), max_length=20, choices=LinkKind.choices, default=LinkKind.AMENDS
    )
    explanation = models.TextField(_("explanation"))

    class Meta:
        verbose_name = _("document link")
        verbose_name_plural = _("document links")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["source", "target", "kind"], name="link_unique")
        ]

    def __str__(self) -> str:
        return f"{self.source_id} {self.kind} {self.target_id}"


class DuplicateKind(models.TextChoices):
    EXACT = "exact", _("Same text")
    NEAR = "near", _("Near-duplicate text")
    TRANSLATION = "translation", _("Translation")


class DuplicateGroup(models.Model):
    """Documents that are copies of each other. Shown to the lawyer, never auto-deleted."""

    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="+", verbose_name=_("workspace")
    )
    kind = models.CharField(_("kind"), max_length=20, choices=DuplicateKind.choices)
    reason = models.TextField(_("reason"))
    score = models.FloatField(_("score"), default=1.0)
    documents = models.ManyToManyField(Document, through="DuplicateMember", related_name="+")

    class Meta:
        verbose_name = _("duplicate group")
        verbose_name_plural = _("duplicate groups")

    def __str__(self) -> str:
        return gettext("Group %(id)s (%(kind)s)") % {"id": self.pk, "kind": self.get_kind_display()}


class DuplicateMember(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    group = models.ForeignKey(DuplicateGroup, on_delete=models.CASCADE, related_name="members")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")

    class Meta:
        verbose_name = _("duplicate group member")
        verbose_name_plural = _("duplicate group members")
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
    # What became of each stored file, in upload order: [{"file", "document_id", "created"}]
    # ("created": false when the same bytes were already in the workspace).
    files = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("ingestion batch")
        verbose_name_plural = _("ingestion batches")

    def __str__(self) -> str:
        return self.label
