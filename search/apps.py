from __future__ import annotations

from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "search"

    def ready(self) -> None:
        from documents.analysis import ANALYSIS_HOOKS
        from documents.textsearch import CHUNKS_INDEXED_HOOKS, CHUNKS_REMOVING_HOOKS
        from search.services import (
            text_stats_add_document,
            text_stats_refresh,
            text_stats_remove_document,
        )

        # Documents calls these without importing search (imports flow the other way).
        for hooks, hook in (
            (ANALYSIS_HOOKS, text_stats_refresh),
            (CHUNKS_INDEXED_HOOKS, text_stats_add_document),
            (CHUNKS_REMOVING_HOOKS, text_stats_remove_document),
        ):
            if hook not in hooks:
                hooks.append(hook)
