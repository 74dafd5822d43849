"""A document stored without a title, whose type was read from the title line at the head of
its text, takes that line as its title (what ingestion now does): pages, exports and tools
then call it by its title rather than its file name. Nothing else changes."""

from __future__ import annotations

from typing import Any

from django.db import migrations


def _titles(apps: Any, schema_editor: Any) -> None:
    with schema_editor.connection.cursor() as cursor:
        # Row-level security applies to the migrating role too: every workspace in scope,
        # for this transaction only.
        cursor.execute(
            "SELECT set_config('lexroom.workspace_ids', coalesce("
            "(SELECT string_agg(id::text, ',') FROM workspaces_workspace), ''), true)"
        )
        cursor.execute(
            "UPDATE documents_document SET title = left(contract_type_title, 500)"
            " WHERE title = '' AND contract_type_title <> ''"
            " AND provenance -> 'contract_type' ->> 'source' = 'text'"
            " AND provenance -> 'contract_type' ->> 'rule' = 'title'"
        )


class Migration(migrations.Migration):
    dependencies = [("documents", "0008_ocr")]

    operations = [migrations.RunPython(_titles, migrations.RunPython.noop)]
