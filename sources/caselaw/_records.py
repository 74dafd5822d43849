"""What a case-law answer carries besides its decisions: the answers it used (for the cache
report) and the decisions' metadata kept for later reads."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from sources.caselaw._http import Fetched
from sources.models import CaseLawHit


@dataclass
class Fetches:
    """Every answer a call used, for the result's cache report."""

    items: list[Fetched] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def report(self) -> dict[str, Any]:
        return {
            "requests": len(self.items),
            "from_cache": sum(1 for f in self.items if f.from_cache),
            "stale": sum(1 for f in self.items if f.stale),
            "oldest_age_seconds": max((f.age_seconds for f in self.items), default=0),
        }


def remember(records: list[dict[str, Any]]) -> None:
    """Keep the listed decisions' metadata for ``get_decision``."""
    now = timezone.now()
    CaseLawHit.objects.bulk_create(
        [
            CaseLawHit(decision_id=r["id"], source=r["source"], metadata=r, seen_at=now)
            for r in records
            if r.get("id")
        ],
        update_conflicts=True,
        unique_fields=["decision_id"],
        update_fields=["metadata", "seen_at", "source"],
    )
