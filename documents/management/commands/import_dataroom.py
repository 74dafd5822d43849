"""import_dataroom PATH --workspace SLUG: a data-room JSON (list of contracts with metadata)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext as _

from documents.management.commands._ingest_cli import IngestCommand
from documents.pipeline import store_dataroom
from documents.services import IngestError


class Command(IngestCommand):
    help = "Import a data-room JSON; contracts without ids are numbered c01, c02… in file order."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("path", type=Path)
        self.add_common_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        workspace, user = self.resolve(options)
        path: Path = options["path"]
        if not path.is_file():
            raise CommandError(_("%(file)s: no such file.") % {"file": path})
        try:
            batch, results = store_dataroom(workspace=workspace, path=path, user=user)
        except IngestError as exc:
            raise CommandError(exc.message) from exc
        self.run_batch(options, workspace, batch, results)
