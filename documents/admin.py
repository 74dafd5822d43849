"""Admin for documents: firm admins review entities (merge/split), documents and duplicates."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from documents.models import Document, DocumentLink, DuplicateGroup, Entity
from documents.services import entity_merge, entity_split_alias
from workspaces.admin import AuditedAdmin


@admin.register(Entity)
class EntityAdmin(AuditedAdmin):
    firm_path = "workspace__firm"
    list_display = ("name", "key", "siren", "siren_valid", "workspace", "merged_into")
    list_filter = ("siren_valid",)
    search_fields = ("name", "key", "siren")
    # An entity stays in its workspace: its parties and documents are there.
    readonly_fields = ("key", "workspace", "merged_into")  # merged and split by the actions
    actions = ("merge_into_first", "split_aliases")

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # its parties would go with it; merge or split instead

    @admin.action(description=_("Merge the selected entities into the first one (by name)"))
    def merge_into_first(self, request: HttpRequest, queryset: QuerySet[Entity]) -> None:
        entities = list(queryset.order_by("name"))
        if len(entities) < 2 or len({e.workspace_id for e in entities}) != 1:
            self.message_user(
                request, gettext("Select two or more entities of one workspace."), messages.ERROR
            )
            return
        target, *others = entities
        entity_merge(target=target, others=others, actor=request.user)  # type: ignore[arg-type]
        message = ngettext(
            "Merged %(count)d entity into %(name)s.",
            "Merged %(count)d entities into %(name)s.",
            len(others),
        )
        self.message_user(request, message % {"count": len(others), "name": target.name})

    @admin.action(description=_("Split each alias of the selected entities into its own entity"))
    def split_aliases(self, request: HttpRequest, queryset: QuerySet[Entity]) -> None:
        created = 0
        for entity in queryset:
            for alias in list(entity.aliases):
                entity_split_alias(entity=entity, alias=alias, actor=request.user)  # type: ignore[arg-type]
                created += 1
        message = ngettext(
            "Created %(count)d entity from aliases.",
            "Created %(count)d entities from aliases.",
            created,
        )
        self.message_user(request, message % {"count": created})


@admin.register(Document)
class DocumentAdmin(AuditedAdmin):
    firm_path = "workspace__firm"
    list_display = ("ref", "title", "status", "contract_type", "effective_end_date", "workspace")
    list_filter = ("status", "needs_ocr", "is_amendment")
    search_fields = ("ref", "title", "filename")
    exclude = ("text", "minhash", "page_starts")

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [f.name for f in Document._meta.fields if f.name not in {"title"}]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # documents come in through ingestion, which keeps the original

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Deleting here would leave the original on disk and the word statistics stale;
        # documents are kept (nothing stored is lost) until a delete service exists.
        return False


@admin.register(DuplicateGroup)
class DuplicateGroupAdmin(AuditedAdmin):
    firm_path = "workspace__firm"
    list_display = ("pk", "kind", "reason", "workspace")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(DocumentLink)
class DocumentLinkAdmin(AuditedAdmin):
    firm_path = "workspace__firm"
    list_display = ("source", "kind", "target", "explanation")
