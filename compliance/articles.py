"""What the rule checks read and write: a contract's article as ingestion stored it, a rule
as the checks read it, and a finding (an article, or none, with the reason in words)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Article:
    chunk_id: int
    heading: str
    article_ref: str
    page: int
    text: str
    types: frozenset[str]
    embedding: Any = None  # numpy vector, or None when not embedded
    confidences: dict[str, float] = field(default_factory=dict)  # the classifier's, per type


@dataclass
class RuleView:
    """A rule as the checks read it (a model row or a file's spec)."""

    key: str
    title: str
    clause_type: str
    kind: str
    params: dict[str, Any]


@dataclass
class Finding:
    rule: RuleView
    article: Article | None
    reason: str
