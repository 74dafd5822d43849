"""restore PATH [--database NAME] [--media-root DIR] [--json]: a backup into an empty install."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from workspaces.backup import BackupError, backup_restore


class Command(BaseCommand):
    help = (
        "Restore a backup into an empty database and originals directory, then check every "
        "table's rows and checksum and every file's SHA-256 against its manifest."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, help="The archive `backup` wrote.")
        parser.add_argument(
            "--database",
            help="Restore into this database of the same server (default: the configured "
            "one), e.g. to check a backup without touching the live data.",
        )
        parser.add_argument(
            "--media-root", type=Path, help="Restore the originals here (default MEDIA_ROOT)."
        )
        parser.add_argument("--json", action="store_true", help="Print the report as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["path"].is_file():
            raise CommandError(f"{options['path']}: no such file.")
        try:
            report = backup_restore(
                options["path"], dbname=options["database"], media_root=options["media_root"]
            )
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        if options["json"]:
            self.stdout.write(json.dumps(report, sort_keys=True))
            return
        self.stdout.write(
            f"Restored {report['tables']} tables ({report['rows']} rows) and {report['files']} "
            f"originals into {report['database']}; checked {report['checked']}."
        )
