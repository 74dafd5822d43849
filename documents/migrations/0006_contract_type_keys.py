"""Contract types stored before the vocabulary (free labels such as "bail commercial") become
its keys ("commercial_lease"); the label as received is kept as the title. Nothing is lost:
a label the vocabulary does not know becomes "other" with the label kept beside it."""

from __future__ import annotations

from typing import Any

from django.db import migrations


def _to_keys(apps: Any, schema_editor: Any) -> None:
    # Imported here: the vocabulary is a pure function of documents.extraction.
    from documents.extraction import contract_type_key

    with schema_editor.connection.cursor() as cursor:
        # Row-level security applies to the migrating role too: every workspace in scope,
        # for this transaction only.
        cursor.execute(
            "SELECT set_config('lexroom.workspace_ids', coalesce("
            "(SELECT string_agg(id::text, ',') FROM workspaces_workspace), ''), true)"
        )
    keys = _known_keys()
    document_model = apps.get_model("documents", "Document")
    for document in document_model.objects.exclude(contract_type="").only(
        "id", "contract_type", "contract_type_title"
    ):
        label = document.contract_type
        if label in keys:
            continue
        document.contract_type = contract_type_key(label) or "other"
        document.contract_type_title = document.contract_type_title or label[:500]
        document.save(update_fields=["contract_type", "contract_type_title"])


def _known_keys() -> set[str]:
    from documents.extraction import CONTRACT_TYPES

    return {entry.key for entry in CONTRACT_TYPES}


class Migration(migrations.Migration):
    dependencies = [("documents", "0005_contract_metadata_provenance")]

    operations = [migrations.RunPython(_to_keys, migrations.RunPython.noop)]
