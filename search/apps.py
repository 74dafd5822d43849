from __future__ import annotations

from django.apps import AppConfig


class SearchConfig(AppConfig):
    name = "search"

    def ready(self) -> None:
        from documents.listeners import index_listener_register
        from search.services import JudgmentCleanup, TextStatistics

        # Documents tells its listeners without importing search (imports flow the other way).
        index_listener_register(TextStatistics())
        index_listener_register(JudgmentCleanup())
