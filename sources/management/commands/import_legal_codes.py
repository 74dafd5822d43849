"""import_legal_codes PATH… [--format legi-json|codes-jsonl]: load French codes, idempotently."""

from __future__ import annotations

import difflib
import json
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from sources.embedding import versions_embed
from sources.importing import (
    HISTORY_FILE,
    CodeRecord,
    ImportProblem,
    read_codes_jsonl,
    read_history,
    read_legi_json,
)
from sources.models import LegalCode, SourceFormat
from sources.services import code_import

FORMATS = [choice.value for choice in SourceFormat]


def discover(paths: list[Path], fmt: str | None) -> list[tuple[Path, str]]:
    """The code files under ``paths`` with their format (from ``fmt`` or the file name)."""
    found: list[tuple[Path, str]] = []
    for path in paths:
        if path.is_dir():
            files = [(p, "codes-jsonl") for p in sorted(path.glob("*.jsonl"))]
            files += [(p, "legi-json") for p in sorted(path.glob("LEGITEXT*.json"))]
            if fmt:
                files = [(p, f) for p, f in files if f == fmt]
            if not files:
                raise CommandError(
                    _("%(path)s: no code file here (*.jsonl, LEGITEXT*.json).") % {"path": path}
                )
            found += files
        elif path.is_file():
            guessed = {".jsonl": "codes-jsonl", ".json": "legi-json"}.get(path.suffix.lower())
            if not (fmt or guessed):
                raise CommandError(
                    _("%(path)s: cannot tell its format; pass --format %(formats)s.")
                    % {"path": path, "formats": "|".join(FORMATS)}
                )
            found.append((path, fmt or guessed or ""))
        else:
            raise CommandError(_("%(path)s: no such file or directory.") % {"path": path})
    return found


class Command(BaseCommand):
    help = (
        "Import French codes (LEGI JSON as shipped by @socialgouv/legi-data, or codes JSONL "
        "with HISTORY_versions_index.tsv). Re-importing updates; it never duplicates."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", type=Path, metavar="PATH")
        parser.add_argument("--format", choices=FORMATS, help=_("Default: from the file name."))
        parser.add_argument(
            "--history",
            type=Path,
            help=_("codes-jsonl: the versions index (default: %(file)s beside the file).")
            % {"file": HISTORY_FILE},
        )
        parser.add_argument("--code", action="append", default=[], help=_("Only this code."))
        parser.add_argument(
            "--replace",
            action="store_true",
            help=_("Replace a code first imported from the other format."),
        )
        parser.add_argument("--no-embed", action="store_true", help=_("Skip the vectors."))
        parser.add_argument("--json", action="store_true", help=_("One JSON report."))

    def handle(self, *args: Any, **options: Any) -> None:
        files = discover(options["paths"], options["format"])
        reports: list[dict[str, object]] = []
        errors: list[str] = []
        imported: list[LegalCode] = []
        wanted = set(options["code"])
        seen: set[str] = set()
        for path, fmt in files:
            try:
                records = self._read(path, fmt, options["history"])
            except ImportProblem as exc:
                errors.append(str(exc))
                self.stderr.write(str(exc))
                continue
            seen.update(r.slug for r in records)
            for record in records:
                if wanted and record.slug not in wanted:
                    continue
                self._progress(_("%(code)s: importing %(n)d versions…"), record)
                try:
                    report = code_import(record=record, replace=options["replace"])
                except ImportProblem as exc:
                    errors.append(str(exc))
                    self.stderr.write(str(exc))
                    continue
                reports.append(report.as_dict())
                imported.append(LegalCode.objects.get(slug=record.slug))
                self._done(report.as_dict())
        self._unknown_codes(wanted, seen)
        embedded = 0 if options["no_embed"] or not imported else self._embed(imported)
        if options["json"]:
            summary = {"codes": reports, "embedded": embedded, "errors": errors}
            self.stdout.write(json.dumps(summary, indent=2, ensure_ascii=False))
        if errors:
            raise CommandError(
                _("%(n)d file(s) or code(s) not imported (see above); the others are.")
                % {"n": len(errors)}
            )

    def _read(self, path: Path, fmt: str, history_path: Path | None) -> list[CodeRecord]:
        if fmt == "legi-json":
            return [read_legi_json(path)]
        history_file = history_path or path.parent / HISTORY_FILE
        if history_path is not None and not history_path.is_file():
            raise ImportProblem(_("%(path)s: no such history file.") % {"path": history_path})
        history = read_history(history_file) if history_file.is_file() else {}
        if not history:
            self.stderr.write(
                _("%(path)s: no %(file)s: versions get no dates (in force, since unknown).")
                % {"path": path, "file": HISTORY_FILE}
            )
        return read_codes_jsonl(path, history)

    def _unknown_codes(self, wanted: set[str], seen: set[str]) -> None:
        for slug in sorted(wanted - seen):
            close = difflib.get_close_matches(slug, sorted(seen), n=3, cutoff=0.5)
            raise CommandError(
                _("--code %(code)s: not in these files (close: %(close)s; they hold: %(all)s).")
                % {"code": slug, "close": ", ".join(close) or "-", "all": ", ".join(sorted(seen))}
            )

    def _progress(self, message: str, record: CodeRecord) -> None:
        self.stderr.write(message % {"code": record.slug, "n": len(record.versions)})

    def _done(self, report: dict[str, object]) -> None:
        self.stderr.write(
            _(
                "%(code)s: %(articles)s articles, %(created)s versions created, %(updated)s "
                "updated, %(unchanged)s unchanged, %(renvois)s renvois, in %(seconds)s s."
            )
            % report
        )

    def _embed(self, codes: list[LegalCode]) -> int:
        last = [0.0]

        def progress(done: int, total: int) -> None:
            # A line at least every 5 s while it embeds, and the last one.
            if done == total or time.monotonic() - last[0] >= 5:
                last[0] = time.monotonic()
                self.stderr.write(
                    _("vectors: %(done)d / %(total)d") % {"done": done, "total": total}
                )

        return versions_embed(codes=codes, progress=progress)
