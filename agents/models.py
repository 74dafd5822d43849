"""Conversations with the agent: per user and workspace, each question a turn with its trace.

Tenant data (row-level security on ``workspace_id``); the selectors add the owner, so a
member never sees a colleague's conversations.
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from workspaces.models import Workspace


class Conversation(models.Model):
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, related_name="+", verbose_name=_("workspace")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("user"),
    )
    title = models.CharField(_("title"), max_length=200)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)

    class Meta:
        verbose_name = _("conversation")
        verbose_name_plural = _("conversations")
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["workspace", "user", "-updated_at"], name="conversation_owner")
        ]

    def __str__(self) -> str:
        return self.title


class Mode(models.TextChoices):
    ANSWER = "answer", _("Answer with sources")
    RETRIEVAL_ONLY = "retrieval_only", _("Sources only (no generation)")
    DIRECT = "direct", _("Model only (unsourced)")


class TurnStatus(models.TextChoices):
    PENDING = "pending", _("Waiting to start")
    RUNNING = "running", _("Running")
    AWAITING_APPROVAL = "awaiting_approval", _("Waiting for your approval")
    DONE = "done", _("Answered")
    FAILED = "failed", _("Failed")


class Turn(models.Model):
    """One question and its answer. ``state`` holds what a paused turn needs to resume (the
    model's messages, the numbered sources, the call awaiting approval)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="turns")
    question = models.TextField(_("question"))
    mode = models.CharField(_("mode"), max_length=20, choices=Mode.choices, default=Mode.ANSWER)
    status = models.CharField(
        _("status"), max_length=20, choices=TurnStatus.choices, default=TurnStatus.PENDING
    )
    # The validated answer: {answer, citations, confidence, missing, escalate_to, ...}.
    answer = models.JSONField(_("answer"), null=True, blank=True)
    error = models.TextField(_("error"), blank=True)
    state = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        verbose_name = _("question")
        verbose_name_plural = _("questions")
        ordering: ClassVar[list[str]] = ["created_at", "pk"]

    def __str__(self) -> str:
        return self.question[:80]


class TraceStep(models.Model):
    """One step of a turn: a model call (tokens, durations), a tool call, a check."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="steps")
    position = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=20)  # model | tool | approval | check
    name = models.CharField(max_length=200)  # the model, the tool or the check
    arguments = models.JSONField(default=dict, blank=True)
    summary = models.JSONField(default=dict, blank=True)
    tokens_in = models.PositiveIntegerField(null=True, blank=True)
    tokens_out = models.PositiveIntegerField(null=True, blank=True)
    duration_ms = models.FloatField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering: ClassVar[list[str]] = ["turn", "position"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["turn", "position"], name="trace_step_unique")
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.name}"


class ToolCallMark(models.Model):
    """One tool call of a token (or a user without one): the rate limit counts these, so
    every process (web, MCP, workers) shares it. Not tenant data; kept two minutes."""

    key = models.CharField(max_length=80)
    at = models.DateTimeField()

    class Meta:
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["key", "at"], name="toolcallmark_key_at"),
            models.Index(fields=["at"], name="toolcallmark_at"),
        ]

    def __str__(self) -> str:
        return f"{self.key} {self.at:%H:%M:%S}"
