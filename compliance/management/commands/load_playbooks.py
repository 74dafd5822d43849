"""load_playbooks --firm NAME [FILE ...] [--assign SLUG ...] [--json]

Imports playbook files (YAML or JSON; the two defaults written by us when none is named) into
a firm: a file that differs from the current version becomes a new version. Invalid files are
refused with every problem and its line, and nothing of that file is stored (exit 2).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from compliance.playbooks import PlaybookInvalid, default_playbooks, parse_playbook
from compliance.services import ComplianceError, playbook_assign, playbook_import
from workspaces.models import Firm, Workspace
from workspaces.tenancy import firm_scope, workspace_scope


class Command(BaseCommand):
    help = "Import playbooks (the defaults, or files) into a firm, and assign them."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="*", type=Path)
        parser.add_argument("--firm", required=True)
        parser.add_argument(
            "--assign",
            action="append",
            default=[],
            metavar="SLUG",
            help="Assign the imported playbooks to this workspace.",
        )
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        firm = Firm.objects.filter(name=options["firm"]).first()
        if firm is None:
            raise CommandError(f"No firm named {options['firm']!r}.")
        paths = options["files"] or default_playbooks()
        specs = []
        for path in paths:
            try:
                specs.append(parse_playbook(path.read_text(encoding="utf-8")))
            except (OSError, UnicodeDecodeError) as exc:
                raise CommandError(f"{path}: {exc}") from None
            except PlaybookInvalid as exc:
                for problem in exc.problems:
                    self.stderr.write(f"{path}: {problem}")
                sys.exit(2)
        report = []
        with firm_scope(firm.pk):
            for spec in specs:
                playbook, created = playbook_import(firm=firm, spec=spec)
                report.append(
                    {
                        "key": spec.key,
                        "version": playbook.version,
                        "created": created,
                        "rules": len(spec.rules),
                    }
                )
        for slug in options["assign"]:
            workspace = Workspace.objects.filter(firm=firm, slug=slug).first()
            if workspace is None:
                raise CommandError(f"No workspace {slug!r} in {firm.name}.")
            with workspace_scope(workspace):
                for spec in specs:
                    try:
                        playbook_assign(workspace=workspace, key=spec.key)
                    except ComplianceError as exc:
                        raise CommandError(str(exc)) from None
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))
        else:
            for line in report:
                state = "new version" if line["created"] else "unchanged"
                self.stdout.write(
                    f"{line['key']} v{line['version']} ({line['rules']} rules): {state}"
                )
