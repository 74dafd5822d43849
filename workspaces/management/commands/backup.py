"""backup PATH [--unsigned] [--json] | backup --verify ARCHIVE [--allow-unsigned] [--json]."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from workspaces.backup import BackupError, backup_verify, backup_write


class Command(BaseCommand):
    help = (
        "Back up the database (pg_dump) and the originals into one signed tar archive at PATH; "
        "or, with --verify ARCHIVE, check an archive without restoring it."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path, nargs="?", help="The archive to write (new).")
        parser.add_argument(
            "--verify",
            type=Path,
            metavar="ARCHIVE",
            help="Check this archive (signature, manifest, every member's SHA-256); "
            "nothing is written or restored.",
        )
        parser.add_argument(
            "--unsigned",
            action="store_true",
            help="Write an archive without a signature (when LEXROOM_BACKUP_KEY is not set); "
            "restoring it will need --allow-unsigned.",
        )
        parser.add_argument(
            "--allow-unsigned",
            action="store_true",
            help="With --verify: accept an archive whose signature cannot be checked (with "
            "LEXROOM_BACKUP_KEY set, only one older than signing: format 1, no manifest.sig).",
        )
        parser.add_argument("--json", action="store_true", help="Print the result as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["verify"]:
            self._verify(options["verify"], options)
            return
        if not options["path"]:
            raise CommandError(_("Name the archive to write, or --verify ARCHIVE."))
        try:
            manifest = backup_write(options["path"], unsigned=options["unsigned"])
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        if options["unsigned"]:
            self.stderr.write(
                self.style.WARNING(
                    _(
                        "WARNING: this archive is NOT signed: a restore cannot tell it from an "
                        "altered one, and needs --allow-unsigned."
                    )
                )
            )
        if options["json"]:
            self.stdout.write(json.dumps(manifest, sort_keys=True))
            return
        rows = sum(table["rows"] for table in manifest["tables"].values())
        files = len(manifest["members"]) - 1
        self.stdout.write(
            _(
                "Backed up %(tables)d tables (%(rows)d rows) and %(files)d originals to "
                "%(path)s (Postgres %(postgres)s)."
            )
            % {
                "tables": len(manifest["tables"]),
                "rows": rows,
                "files": files,
                "path": options["path"],
                "postgres": manifest["postgres"],
            }
        )

    def _verify(self, archive: Path, options: dict[str, Any]) -> None:
        if not archive.is_file():
            raise CommandError(_("%(path)s: no such file.") % {"path": archive})
        try:
            report = backup_verify(archive, allow_unsigned=options["allow_unsigned"])
        except BackupError as exc:
            if options["json"]:
                self.stdout.write(
                    json.dumps({"archive": str(archive), "ok": False, "error": str(exc)})
                )
            raise CommandError(
                _("%(path)s is refused: %(reason)s") % {"path": archive, "reason": exc}
            ) from exc
        if report["signature"] == "unsigned":
            self.stderr.write(self.style.WARNING(_("WARNING: the signature was NOT checked.")))
        if options["json"]:
            self.stdout.write(json.dumps(report, sort_keys=True))
            return
        self.stdout.write(
            _(
                "%(path)s is intact: signature %(signature)s, %(tables)d tables (%(rows)d rows) "
                "and %(files)d originals, every SHA-256 checked; made %(created)s%(encrypted)s."
            )
            % {
                "path": archive,
                "signature": report["signature"],
                "tables": report["tables"],
                "rows": report["rows"],
                "files": report["files"],
                "created": report["backup_created_at"],
                "encrypted": _(", encrypted") if report["encrypted"] else "",
            }
        )
