"""What `ingest` and `import_dataroom` share: options, running the batch, the summary."""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.utils.translation import gettext as _
from tqdm import tqdm

from documents.management.model_command import ModelCommand
from documents.models import IngestBatch
from documents.pipeline import (
    batch_report,
    queue_batch,
    run_in_process,
    wait_for_batch,
    worker_alive,
)
from documents.services import StoreResult
from workspaces.models import User, Workspace


class IngestCommand(ModelCommand):
    def add_common_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--workspace", required=True, help="Workspace slug.")
        parser.add_argument("--firm", help="Firm name, when several firms use the slug.")
        parser.add_argument("--user", help="Email recorded as the uploader (default: system).")
        parser.add_argument(
            "--no-wait", action="store_true", help="Queue the work for the workers and return."
        )
        parser.add_argument(
            "--in-process",
            action="store_true",
            help="Process here even if a worker is running.",
        )
        parser.add_argument("--json", action="store_true", help="Print the summary as JSON.")

    def resolve(self, options: dict[str, Any]) -> tuple[Workspace, User | None]:
        workspaces = Workspace.objects.filter(slug=options["workspace"]).select_related("firm")
        if options.get("firm"):
            workspaces = workspaces.filter(firm__name=options["firm"])
        found = list(workspaces[:2])
        if len(found) != 1:
            message = (
                _("No workspace %(slug)r.")
                if not found
                else _("Several firms have %(slug)r: pass --firm.")
            )
            raise CommandError(message % {"slug": options["workspace"]})
        user = None
        if options.get("user"):
            user = User.objects.filter(email=options["user"].lower(), firm=found[0].firm).first()
            if user is None:
                message = _("No user %(email)s in firm %(firm)s.")
                raise CommandError(message % {"email": options["user"], "firm": found[0].firm.name})
        return found[0], user

    def run_batch(
        self,
        options: dict[str, Any],
        workspace: Workspace,
        batch: IngestBatch,
        results: list[StoreResult],
    ) -> None:
        bars: dict[str, tqdm[Any]] = {}
        quiet = options["json"] or options.get("verbosity", 1) == 0

        def progress(stage: str, done: int, total: int) -> None:
            if quiet:
                return
            bar = bars.get(stage)
            if bar is None:
                bar = bars[stage] = tqdm(total=total, desc=stage, unit="", file=sys.stderr)
            bar.total = total
            bar.n = done
            bar.refresh()

        timings: dict[str, float] = {}
        if options["no_wait"]:
            queued = queue_batch(workspace=workspace, batch=batch)
            mode = _("queued %(count)d for the workers") % {"count": queued}
        elif worker_alive() and not options["in_process"]:
            queue_batch(workspace=workspace, batch=batch)
            wait_for_batch(workspace=workspace, batch=batch, progress=progress)
            mode = _("processed by the workers")
        else:
            timings = run_in_process(workspace=workspace, batch=batch, progress=progress)
            mode = _("processed in this process (no worker running)")
        for bar in bars.values():
            bar.close()
        report = batch_report(workspace=workspace, batch=batch, results=results)
        report.timings = {k: round(v, 2) for k, v in timings.items()}
        self.summarise(options, report.__dict__ | {"mode": mode})

    def summarise(self, options: dict[str, Any], summary: dict[str, Any]) -> None:
        if options["json"]:
            self.stdout.write(json.dumps(summary, ensure_ascii=False, indent=2))
        else:
            message = _(
                "Batch %(batch)s: %(stored)d stored, %(present)d already present, %(refused)d "
                "refused; %(mode)s."
            )
            values = {
                "batch": summary["batch_id"],
                "stored": summary["stored"],
                "present": summary["already_present"],
                "refused": len(summary["refused"]),
                "mode": summary["mode"],
            }
            self.stdout.write(message % values)
            # Status values are machine values (the same as in the API and the JSON summary).
            statuses = ", ".join(f"{k}: {v}" for k, v in sorted(summary["statuses"].items()))
            message = _("Documents by status: %(statuses)s")
            self.stdout.write(message % {"statuses": statuses or _("none")})
            for item in summary["refused"]:
                line = _("  refused  %(error)s") % {"error": item["error"]}
                self.stdout.write(self.style.WARNING(line))
            for item in summary["failures"]:
                line = _("  failed   %(contract)s %(file)s: %(error)s") % {
                    "contract": item["contract_id"],
                    "file": item["file"],
                    "error": item["error"],
                }
                self.stdout.write(self.style.WARNING(line))
        if summary["refused"] or summary["failures"]:
            raise SystemExit(1)
