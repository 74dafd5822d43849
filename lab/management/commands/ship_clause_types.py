"""ship_clause_types [--data-dir DIR]: train the clause-type classifier for the active
embedding model (CUAD's excerpts, our definitions, ACORD's train queries: the same training as
``train_clause_types``), score it on CUAD's held-out contracts as the package will hold it
(half precision), and write it into ``documents/clause_types/shipped/`` with its report: how it
was made (this command, the data, the commit, the libraries) and its held-out scores. Nothing
is stored in the database."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from importlib.metadata import version
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


class Command(BaseCommand):
    help = (
        "Train the clause-type classifier for the active embedding model and write it, with "
        "its report, into the package (documents/clause_types/shipped/)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--data-dir",
            type=Path,
            default=Path(settings.BASE_DIR).parent / "shared" / "data",
            help="Folder holding cuad/ and acord/; default ../shared/data.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        made = {
            "made_by": "manage.py ship_clause_types (lab), LEXROOM_EMBEDDING_MODEL set to the "
            "encoder",
            "data": [
                "CUAD v1: the annotated excerpts of its 510 contracts (cuad/master_clauses.csv), "
                "unannotated paragraphs of the same contracts as negatives",
                "Lexroom's own definitions and cue phrases of each type (documents.clause_types)",
                "ACORD: the train split's queries (acord/)",
            ],
            "commit": _commit(),
            "made_on": datetime.now(UTC).date().isoformat(),
            "libraries": {name: version(name) for name in _LIBRARIES},
        }
        try:
            examples = training_examples(data_dir=options["data_dir"], labels=None)
            _, report = clause_classifier_train(
                examples=examples,
                firm_id=None,
                save=False,
                progress=lambda message: print(message, file=sys.stderr, flush=True),
                ship=made,
                contracts_dir=training_contracts(data_dir=options["data_dir"], labels=None),
            )
        except TrainingDataError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(json.dumps({**report, **made}, indent=2, ensure_ascii=False))


_LIBRARIES = ("scikit-learn", "numpy", "sentence-transformers", "torch")


def _commit() -> str:
    """The checkout's commit (with '+changes' when files differ from it), or 'unknown'."""
    git = shutil.which("git")
    if git is None:
        return "unknown"
    try:
        head = _git(git, "rev-parse", "--short", "HEAD")
        dirty = _git(git, "status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{head}+changes" if dirty else head


def _git(git: str, *arguments: str) -> str:
    done = subprocess.run(  # noqa: S603 - fixed argv
        [git, *arguments],
        cwd=Path(settings.BASE_DIR),
        capture_output=True,
        text=True,
        timeout=10,
        check=True,
    )
    return done.stdout.strip()
