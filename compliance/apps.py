from __future__ import annotations

from django.apps import AppConfig


class ComplianceConfig(AppConfig):
    name = "compliance"

    def ready(self) -> None:
        from compliance.selectors import flags_as_notes
        from documents.viewer_notes import article_note_provider_register

        # The viewer shows a contract's flags beside the articles they cite.
        article_note_provider_register("compliance", flags_as_notes)
