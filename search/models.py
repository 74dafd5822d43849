"""Full-text statistics per workspace, for BM25 scoring (document frequency of each lexeme)."""

from __future__ import annotations

from typing import ClassVar

from django.db import models
from django.utils import timezone

from workspaces.models import Workspace


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
