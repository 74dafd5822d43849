"""backup PATH [--json]: the database and the originals in one archive, with a manifest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from workspaces.backup import BackupError, backup_write


class Command(BaseCommand):
    help = "Back up the database (pg_dump) and the originals into one tar archive at PATH."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="The archive to write (must not exist).")
        parser.add_argument("--json", action="store_true", help="Print the manifest as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            manifest = backup_write(options["path"])
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        if options["json"]:
            self.stdout.write(json.dumps(manifest, sort_keys=True))
            return
        rows = sum(table["rows"] for table in manifest["tables"].values())
        files = len(manifest["members"]) - 1
        self.stdout.write(
            f"Backed up {len(manifest['tables'])} tables ({rows} rows) and {files} originals "
            f"to {options['path']} (Postgres {manifest['postgres']})."
        )
