"""Playbooks (the firm's positions), the scans that check contracts against them, and the
flags a lawyer resolves, dismisses or escalates.

A playbook is the firm's (no workspace: read through the firm's selectors) and versioned: an
edit stores a new version, and a scan names the version it used, so a flag always points at
the rule as it was. Scans, flags and their history are tenant rows (RLS on ``workspace_id``).
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from documents.models import Chunk, Document
from workspaces.models import Firm, Workspace


class Severity(models.TextChoices):
    INFO = "info", _("Info")
    LOW = "low", _("Low")
    MEDIUM = "medium", _("Medium")
    HIGH = "high", _("High")
    CRITICAL = "critical", _("Critical")


SEVERITY_ORDER = {value: rank for rank, value in enumerate(Severity.values)}


class RuleKind(models.TextChoices):
    REQUIRED = "required", _("Required clause")
    PROHIBITED = "prohibited", _("Prohibited clause")
    KEYWORD = "keyword", _("Terms that must or must not appear")
    REGEX = "regex", _("Pattern that must or must not match")
    THRESHOLD = "threshold", _("Numeric threshold")
    POSITION = "position", _("Position with fallbacks")
    LLM = "llm", _("Question to the LLM")


class Playbook(models.Model):
    firm = models.ForeignKey(Firm, on_delete=models.CASCADE, related_name="+")
    key = models.SlugField(_("key"), max_length=80)  # the same across versions
    version = models.PositiveIntegerField(_("version"))
    title = models.CharField(_("title"), max_length=200)
    language = models.CharField(_("language"), max_length=8, default="fr")
    description = models.TextField(_("description"), blank=True)
    # The firm's own clause types: [{key, label, examples, cue?, threshold?}] (see playbooks).
    clause_types = models.JSONField(_("firm clause types"), default=list, blank=True)
    # Which contracts it checks: {"languages": [...], "contract_types": [...]}; {} all.
    applies_to = models.JSONField(_("applies to"), default=dict, blank=True)
    current = models.BooleanField(_("current version"), default=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        verbose_name = _("playbook")
        verbose_name_plural = _("playbooks")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["firm", "key", "version"], name="playbook_version"),
            models.UniqueConstraint(
                fields=["firm", "key"],
                condition=models.Q(current=True),
                name="playbook_one_current",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.title} (v{self.version})"


class Rule(models.Model):
    """One position of a playbook version. ``params`` by kind: keyword ``{terms, must}``,
    regex ``{pattern, must}``, threshold ``{quantity, op, value}``, position ``{preferred,
    fallbacks, unacceptable}``, llm ``{question}`` (see compliance.playbooks)."""

    # A version is never edited or deleted by the app (the admin refuses it): a firm that goes
    # takes its playbooks with it; a rule some flag cites cannot go alone (RESTRICT).
    playbook = models.ForeignKey(Playbook, on_delete=models.CASCADE, related_name="rules")
    key = models.SlugField(_("key"), max_length=80)
    title = models.CharField(_("title"), max_length=200)
    clause_type = models.CharField(_("clause type"), max_length=64, blank=True)
    kind = models.CharField(_("kind"), max_length=12, choices=RuleKind.choices)
    severity = models.CharField(_("severity"), max_length=10, choices=Severity.choices)
    params = models.JSONField(_("parameters"), default=dict, blank=True)
    explanation = models.TextField(_("explanation"), blank=True)
    # Which of the playbook's contracts it checks, as Playbook.applies_to; {} all of them.
    applies_to = models.JSONField(_("applies to"), default=dict, blank=True)
    # The contracts it leaves out, by the same fields: a governing-law rule on employment.
    except_for = models.JSONField(_("except for"), default=dict, blank=True)

    class Meta:
        verbose_name = _("rule")
        verbose_name_plural = _("rules")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["playbook", "key"], name="rule_key_per_version")
        ]

    def __str__(self) -> str:
        return self.title


class WorkspacePlaybook(models.Model):
    """A playbook (by key: its current version at each scan) assigned to a workspace."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    playbook_key = models.SlugField(max_length=80)
    assigned_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(
                fields=["workspace", "playbook_key"], name="workspace_playbook_unique"
            )
        ]

    def __str__(self) -> str:
        return self.playbook_key


class ScanStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


class Scan(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    playbook = models.ForeignKey(Playbook, on_delete=models.RESTRICT, related_name="+")
    document = models.ForeignKey(
        Document, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )  # null: the whole workspace
    status = models.CharField(max_length=10, choices=ScanStatus.choices, default=ScanStatus.QUEUED)
    documents_total = models.PositiveIntegerField(default=0)
    documents_done = models.PositiveIntegerField(default=0)
    flags_raised = models.PositiveIntegerField(default=0)
    # Rules not checked, with why (an LLM rule without an LLM configured...).
    skipped = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"scan {self.pk} ({self.status})"


class FlagStatus(models.TextChoices):
    OPEN = "open", _("Open")
    RESOLVED = "resolved", _("Resolved")
    DISMISSED = "dismissed", _("Dismissed")
    ESCALATED = "escalated", _("Escalated")


class Flag(models.Model):
    """A rule a contract breaks, with the article cited (none for a missing clause)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    scan = models.ForeignKey(Scan, on_delete=models.CASCADE, related_name="flags")
    rule = models.ForeignKey(Rule, on_delete=models.RESTRICT, related_name="+")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="+")
    # A re-ingested document loses its chunks: the flag keeps the article's reference and text.
    chunk = models.ForeignKey(
        Chunk, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    article_ref = models.CharField(max_length=200, blank=True)
    page = models.PositiveIntegerField(null=True, blank=True)
    excerpt = models.TextField(blank=True)
    reason = models.TextField()  # why the rule is broken, in words, with the value found
    severity = models.CharField(max_length=10, choices=Severity.choices)
    status = models.CharField(max_length=10, choices=FlagStatus.choices, default=FlagStatus.OPEN)
    # The clause the rule met (sha256 of its text, spaces and case folded; "absent" for a
    # missing clause): a rescan that meets the same clause keeps the lawyer's decision.
    fingerprint = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["workspace", "status", "severity"], name="flag_listing"),
            models.Index(fields=["document", "fingerprint"], name="flag_clause"),
        ]

    def __str__(self) -> str:
        return self.reason[:80]


class FlagEvent(models.Model):
    """A flag's history: every change of status, who made it, when and why."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    flag = models.ForeignKey(Flag, on_delete=models.CASCADE, related_name="events")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    from_status = models.CharField(max_length=10, blank=True)
    to_status = models.CharField(max_length=10)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering: ClassVar[list[str]] = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.from_status} → {self.to_status}"
