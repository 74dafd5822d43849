"""fuzz [--calls N] [--uploads N] [--seed S] [--json]: generated and mutated tool calls
through the CLI, REST and MCP paths, and malformed uploads through ingestion, in a throwaway
workspace; exits 1 when any call answered 5xx (or crashed) or any upload was lost or crashed."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.test import override_settings

from documents.bench import bench_workspace_create, bench_workspace_find, bench_workspace_release
from documents.pipeline import run_in_process, store_named
from documents.services import batch_create
from workspaces.bench.report import MeasurementCommand
from workspaces.tenancy import workspace_scope
from workspaces.tokens import token_create

CONTRACT = (
    "CONTRAT DE BAIL COMMERCIAL\nEntre SCI Alpha et Beta SARL.\nARTICLE 1 - DURÉE\nNeuf ans à "
    "compter du 1er janvier 2024.\nARTICLE 2 - LOYER\nDouze mille euros par an.\n"
)
# The case-law tools reach no site while fuzzed: a closed local port, no retries.
OFFLINE: dict[str, Any] = {
    "LEXROOM_ARIANEWEB_URL": "http://127.0.0.1:9",
    "LEXROOM_OPENDATA_URL": "http://127.0.0.1:9/api",
    "LEXROOM_CASELAW_RETRIES": 0,
    "LEXROOM_TOOL_RATE_PER_MINUTE": 0,
    "ALLOWED_HOSTS": ["testserver", "localhost"],
}


class Command(MeasurementCommand):
    help = "Fuzz the tools (CLI, REST, MCP) and the uploads; report every outcome as JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument("--calls", type=int, default=10_000, help="Tool calls (10,000).")
        parser.add_argument("--uploads", type=int, default=10_000, help="Uploads (10,000).")
        parser.add_argument("--seed", type=int, default=0, help="Seed of the generated uploads.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            from agents.fuzz import fuzz_tools, fuzz_uploads
        except ImportError as exc:
            raise CommandError(
                f"fuzz needs the dev extra (pip install -e '.[dev]'): {exc}"
            ) from exc
        firm, _ = bench_workspace_find("fuzz")
        workspace, user = bench_workspace_create(
            firm=firm, slug=f"fuzz-{int(time.time())}", actor="system:fuzz"
        )
        try:
            with workspace_scope(workspace):
                results = store_named(workspace=workspace, name="bail.txt",
                                      data=CONTRACT.encode(), user=user)  # fmt: skip
                batch = batch_create(workspace=workspace, label="fuzz", results=results, user=None)
            run_in_process(workspace=workspace, batch=batch)
            _, raw = token_create(user=user, name="fuzz")
            with override_settings(**OFFLINE):
                self.note(f"Fuzzing the tools: {options['calls']} calls…")
                tools = fuzz_tools(user=user, raw_token=raw, calls=options["calls"],
                                   workspace=workspace.slug).as_dict()  # fmt: skip
                self.note(f"Fuzzing the uploads: {options['uploads']}…")
                uploads = fuzz_uploads(workspace=workspace, user=user, uploads=options["uploads"],
                                       seed=options["seed"]).as_dict()  # fmt: skip
        finally:
            bench_workspace_release(workspace, keep=False, note=self.note)
        ok = (
            not tools["failures_total"] and not uploads["crashes_total"] and uploads["nothing_lost"]
        )
        result = {"ok": ok, "tools": tools, "uploads": uploads}
        self.emit(result, as_json=options["json"])
        if not ok:
            raise CommandError("fuzz found failures (see the report).")
