"""Search's own tables: full-text statistics per workspace (BM25), the members' relevance
judgments on results (tenant data), and each firm's query adapter learnt from them."""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from workspaces.models import Firm, Workspace


class TextStats(models.Model):
    """Chunk count and mean tsvector length of a workspace when its lexemes were counted."""

    workspace = models.OneToOneField(Workspace, on_delete=models.CASCADE, related_name="+")
    chunks = models.PositiveIntegerField()
    mean_length = models.FloatField()
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.workspace_id}: {self.chunks} chunks"


class LexemeStat(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    lexeme = models.TextField()
    chunks = models.PositiveIntegerField(help_text="Chunks containing the lexeme.")

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["workspace", "lexeme"], name="lexeme_stat_unique")
        ]

    def __str__(self) -> str:
        return f"{self.lexeme}: {self.chunks}"


class RelevanceJudgment(models.Model):
    """A member's verdict on one search result (an article) for one query: relevant or not.

    Tenant data (RLS on ``workspace_id``); one row per user, workspace, query and article, so
    rating again overwrites. The embedding model the search ran with is kept: an adapter
    learns for one model only.
    """

    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="+", verbose_name=_("workspace")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("user"),
    )
    chunk = models.ForeignKey(
        "documents.Chunk", on_delete=models.CASCADE, related_name="+", verbose_name=_("passage")
    )
    query = models.TextField(_("query"))
    # The unique key uses the digest: a query may be longer than a B-tree entry allows.
    query_sha256 = models.CharField(max_length=64)
    relevant = models.BooleanField(_("relevant"))
    embedding_model = models.CharField(_("embedding model"), max_length=200)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)

    class Meta:
        verbose_name = _("relevance judgment")
        verbose_name_plural = _("relevance judgments")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(
                fields=["workspace", "user", "query_sha256", "chunk"],
                name="relevance_judgment_unique",
            )
        ]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["workspace", "embedding_model"], name="judgment_ws_model"),
        ]

    def __str__(self) -> str:
        return f"{self.query[:40]} · {self.chunk_id} · {self.relevant}"


class SearchAdapter(models.Model):
    """A firm's query-side linear map for one embedding model (``manage.py
    train_search_adapter``): the vector arm searches with ``W @ query``; chunks are untouched.

    A trained adapter is a candidate until a firm admin approves it (``approved_at``); the
    ranking uses the firm's most recently approved one that was not rolled back
    (``rolled_back_at``), so a rollback falls back to the previous approval, or to none.

    No ``workspace_id``: a firm-wide row, read by the ranking for the workspace's firm. It
    holds numbers only (no text of any judgment or document; raters by user id).
    """

    firm = models.ForeignKey(
        Firm, on_delete=models.CASCADE, related_name="+", verbose_name=_("firm")
    )
    embedding_model = models.CharField(_("embedding model"), max_length=200)
    dimension = models.PositiveSmallIntegerField(_("dimension"))
    weights = models.BinaryField(help_text="float32, dimension x dimension, row-major.")
    judgments = models.PositiveIntegerField(_("judgments"))
    queries = models.PositiveIntegerField(_("queries"))
    metrics = models.JSONField(_("metrics"), default=dict)
    trained_at = models.DateTimeField(_("trained at"), default=timezone.now)
    approved_at = models.DateTimeField(_("approved at"), null=True, blank=True)
    rolled_back_at = models.DateTimeField(_("rolled back at"), null=True, blank=True)

    class Meta:
        verbose_name = _("search adapter")
        verbose_name_plural = _("search adapters")
        indexes: ClassVar[list[models.Index]] = [
            # The ranking's lookup: the firm's latest approval for the model.
            models.Index(
                fields=["firm", "embedding_model", "approved_at"], name="search_adapter_approved"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.firm_id} · {self.embedding_model}"
