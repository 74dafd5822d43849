from __future__ import annotations

from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "search"

    def ready(self) -> None:
        from documents.analysis import ANALYSIS_HOOKS
        from search.services import text_stats_refresh

        if text_stats_refresh not in ANALYSIS_HOOKS:
            ANALYSIS_HOOKS.append(text_stats_refresh)
