"""embed_legal_codes [--code NAME]… --queue | --wait | --here: embed the codes' articles for the
meaning search, in the worker (queued; --wait shows its progress until done) or here."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext as _

from documents.management.model_command import ModelCommand
from documents.pipeline import worker_alive
from sources.embedding import code_embedding_round
from sources.models import CodeEmbedding, EmbeddingStatus, LegalCode
from sources.selectors import CodeNotFound, code_get, codes_all
from sources.tasks import code_embedding_queue

# --wait reads the progress rows this often, and prints a line at least every REPORT_S.
POLL_S, REPORT_S = 1.0, 5.0


class Command(ModelCommand):
    help = _(
        "Embed the French codes' articles for the meaning search (the words and article "
        "numbers are searched meanwhile): queued for the worker, or here."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--code", action="append", help=_("Only this code (repeat)."))
        how = parser.add_mutually_exclusive_group(required=True)
        how.add_argument("--queue", action="store_true", help=_("Queue it for the worker."))
        how.add_argument(
            "--wait",
            action="store_true",
            help=_("Queue it, then show the worker's progress until every code is done."),
        )
        how.add_argument("--here", action="store_true", help=_("Embed here, with progress."))
        parser.add_argument(
            "--timeout",
            type=float,
            default=0,
            help=_("--wait: give up waiting after this many seconds (default: no limit)."),
        )

    def handle(self, *args: Any, **options: Any) -> None:
        codes = self._codes(options["code"])
        if not codes:
            self.stdout.write(_("No code is imported: nothing to embed."))
            return
        if options["here"]:
            for code in codes:
                self._here(code)
            return
        for code in codes:
            state = code_embedding_queue(code=code)
            self.stdout.write(self._line(code, state))
        if options["wait"]:
            self._wait(codes, options["timeout"])

    def _codes(self, names: list[str] | None) -> list[LegalCode]:
        if not names:
            return list(codes_all())
        try:
            return [code_get(name) for name in names]
        except CodeNotFound as exc:
            close = ", ".join(exc.details.get("close_matches") or []) or "-"  # type: ignore[arg-type]
            raise CommandError(f"{exc.message} ({_('close')}: {close})") from None

    def _here(self, code: LegalCode) -> None:
        started = time.monotonic()
        last = [0.0]

        def progress(done: int, total: int) -> None:
            if done == total or time.monotonic() - last[0] >= REPORT_S:
                last[0] = time.monotonic()
                self.stdout.write(self._counts(code, done, total, started))

        code_embedding_round(code=code, progress=progress)
        state = CodeEmbedding.objects.get(code=code)
        self.stdout.write(self._line(code, state))

    def _wait(self, codes: list[LegalCode], timeout: float) -> None:
        if not worker_alive():
            self.stderr.write(
                _(
                    "No worker is running: the codes wait in the queue until one starts "
                    "(make run, or manage.py qcluster). Ctrl-C stops waiting; "
                    "--here embeds in this process."
                )
            )
        started = time.monotonic()
        last_report = 0.0
        while True:
            states = list(CodeEmbedding.objects.filter(code__in=codes).select_related("code"))
            finished = all(
                s.status in (EmbeddingStatus.DONE, EmbeddingStatus.FAILED) for s in states
            )
            if finished or time.monotonic() - last_report >= REPORT_S:
                last_report = time.monotonic()
                for state in states:
                    self.stdout.write(self._counts(state.code, state.done, state.total, started))
            if finished:
                break
            if timeout and time.monotonic() - started >= timeout:
                raise CommandError(
                    _("Still embedding after %(s)d s: stopped waiting.") % {"s": timeout}
                )
            time.sleep(POLL_S)
        failed = [s for s in states if s.status == EmbeddingStatus.FAILED]
        for state in failed:
            self.stderr.write(f"{state.code.slug}: {state.error}")
        if failed:
            raise CommandError(_("%(n)d code(s) failed (see above).") % {"n": len(failed)})

    def _counts(self, code: LegalCode, done: int, total: int, started: float) -> str:
        return _("%(code)s: %(done)d of %(total)d article versions embedded (%(s)d s)") % {
            "code": code.slug,
            "done": done,
            "total": total,
            "s": time.monotonic() - started,
        }

    def _line(self, code: LegalCode, state: CodeEmbedding) -> str:
        return _("%(code)s: %(status)s, %(done)d of %(total)d article versions embedded.") % {
            "code": code.slug,
            "status": state.get_status_display(),
            "done": state.done,
            "total": state.total,
        }
