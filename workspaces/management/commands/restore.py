"""restore PATH [--database NAME] [--media-root DIR] [--allow-unsigned] [--json]: a backup
into an empty install."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from workspaces.backup import BackupError, backup_restore


class Command(BaseCommand):
    help = (
        "Check a backup's signature and every file's SHA-256, restore it into an empty database "
        "and originals directory, then check every table's rows and checksum."
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
        parser.add_argument(
            "--allow-unsigned",
            action="store_true",
            help="Restore an archive whose signature cannot be checked: any, when "
            "LEXROOM_BACKUP_KEY is not set here; with a key, only one older than signing "
            "(format 1, no manifest.sig). A wrong or stripped signature is refused all the same.",
        )
        parser.add_argument("--json", action="store_true", help="Print the report as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["path"].is_file():
            raise CommandError(_("%(path)s: no such file.") % {"path": options["path"]})
        try:
            report = backup_restore(
                options["path"],
                dbname=options["database"],
                media_root=options["media_root"],
                allow_unsigned=options["allow_unsigned"],
            )
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        if report["signature"] == "unsigned":
            # Loud on purpose: nothing proves this data is what Lexroom backed up.
            self.stderr.write(
                self.style.ERROR(
                    _(
                        "WARNING: restored WITHOUT checking a signature (--allow-unsigned): "
                        "nothing proves this archive is the one Lexroom wrote. Check its users, "
                        "superusers and documents before opening the install."
                    )
                )
            )
        if options["json"]:
            self.stdout.write(json.dumps(report, sort_keys=True))
            return
        self.stdout.write(
            _(
                "Restored %(tables)d tables (%(rows)d rows) and %(files)d originals into "
                "%(database)s; signature %(signature)s; checked every table's row count and "
                "checksum and every file's SHA-256."
            )
            % {
                "tables": report["tables"],
                "rows": report["rows"],
                "files": report["files"],
                "database": report["database"],
                "signature": report["signature"],
            }
        )
