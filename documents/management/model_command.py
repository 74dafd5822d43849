"""Commands that load the embedding or rerank model share one way of failing when it cannot be
loaded: a single line naming the setting to change, not a traceback."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from core.embeddings import ModelUnavailable


class ModelCommand(BaseCommand):
    def execute(self, *args: Any, **options: Any) -> str | None:
        try:
            return super().execute(*args, **options)
        except ModelUnavailable as exc:
            raise CommandError(str(exc)) from exc
