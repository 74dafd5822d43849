"""ingest PATH... --workspace SLUG: files, folders and ZIPs (PDF, DOCX, TXT, MD, HTML, JSON)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import CommandParser

from documents.management.commands._ingest_cli import IngestCommand
from documents.pipeline import store_files


class Command(IngestCommand):
    help = "Ingest files, folders and ZIP archives into a workspace, then process them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", type=Path)
        self.add_common_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        workspace, user = self.resolve(options)
        batch, results = store_files(workspace=workspace, paths=options["paths"], user=user)
        self.run_batch(options, workspace, batch, results)
