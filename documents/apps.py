from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DocumentsConfig(AppConfig):
    name = "documents"
    verbose_name = _("Documents")

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from documents.vector_index import vector_indexes_create

        # Built by migrate, as the owner role: the app role cannot create indexes.
        post_migrate.connect(vector_indexes_create, sender=self)
