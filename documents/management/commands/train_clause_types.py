"""train_clause_types [--data-dir DIR] [--labels FILE.csv] [--firm NAME] [--retag] [--dry-run]:
train the clause-type classifier for the active embedding model and print its held-out scores
as JSON (per type precision / recall / F1, micro and macro averages, the chosen thresholds;
on CUAD, the contract-level presence thresholds read on whole validation contracts)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from documents.clause_types import (
    TrainingDataError,
    clause_classifier_train,
    training_contracts,
    training_examples,
)
from documents.services import workspace_tag_clause_types
from workspaces.models import Firm, Workspace


class Command(BaseCommand):
    help = (
        "Train the clause-type classifier (CUAD's excerpts, our definitions and ACORD's train "
        "queries; or a firm's own labels) and print its held-out scores as JSON."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--data-dir",
            type=Path,
            default=Path(settings.BASE_DIR).parent / "shared" / "data",
            help="Folder holding cuad/ (and acord/ for its train queries); default ../shared/data.",
        )
        parser.add_argument(
            "--labels",
            type=Path,
            default=None,
            help="A firm's own labels: CSV with columns text,type[,contract] instead of CUAD.",
        )
        parser.add_argument(
            "--firm", default=None, help="Store the classifier for this firm (name) only."
        )
        parser.add_argument(
            "--retag",
            action="store_true",
            help="Tag the chunks of every workspace (of --firm) with the new classifier now "
            "(otherwise the next ingestion round of each workspace does it).",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Report the scores, store nothing."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["labels"] and not options["firm"] and Firm.objects.count() > 1:
            # One firm's labels must not become every firm's default classifier.
            raise CommandError(
                "--labels needs --firm NAME on an install with several firms: the classifier "
                "learnt from a firm's labels is that firm's."
            )
        firm = None
        if options["firm"]:
            firm = Firm.objects.filter(name=options["firm"]).first()
            if firm is None:
                raise CommandError(f"No firm named {options['firm']!r}.")
        try:
            examples = training_examples(data_dir=options["data_dir"], labels=options["labels"])
            _, report = clause_classifier_train(
                examples=examples,
                firm_id=firm.pk if firm else None,
                save=not options["dry_run"],
                progress=lambda message: print(message, file=sys.stderr, flush=True),
                contracts_dir=training_contracts(
                    data_dir=options["data_dir"], labels=options["labels"]
                ),
            )
        except TrainingDataError as exc:
            raise CommandError(f"{exc} The previous classifier is kept.") from exc
        if options["retag"] and not options["dry_run"]:
            report["retagged_chunks"] = _retag(firm)
        self.stdout.write(json.dumps(report, indent=2, ensure_ascii=False))


def _retag(firm: Firm | None) -> int:
    workspaces = Workspace.objects.all() if firm is None else Workspace.objects.filter(firm=firm)
    return sum(workspace_tag_clause_types(workspace=w) for w in workspaces.order_by("pk"))
