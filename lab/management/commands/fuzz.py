"""fuzz [--calls N] [--uploads N] [--openapi N] [--seed S] [--json]: generated and mutated tool
calls through the CLI, REST and MCP paths, and malformed uploads through ingestion, in a
throwaway workspace; then the OpenAPI schema run by schemathesis against a live server as
every credential kind of the permission matrix, in a throwaway world of its own. Exits 1 when
any call answered 5xx (or crashed), any upload was lost or crashed, or any schemathesis check
failed."""

from __future__ import annotations

import secrets
import time
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.test import override_settings

from lab.documents.bench import (
    bench_workspace_create,
    bench_workspace_find,
    bench_workspace_release,
)
from lab.report import MeasurementCommand
from workspaces.models import PersonalToken
from workspaces.tokens import token_create, token_revoke

# The case-law tools and the agent's model reach no site while fuzzed: a closed local port,
# no retries.
OFFLINE: dict[str, Any] = {
    "LEXROOM_ARIANEWEB_URL": "http://127.0.0.1:9",
    "LEXROOM_OPENDATA_URL": "http://127.0.0.1:9/api",
    "LEXROOM_CASELAW_RETRIES": 0,
    "OLLAMA_URL": "http://127.0.0.1:9",
    "LEXROOM_LLM_RETRIES": 0,
    "LEXROOM_TOOL_RATE_PER_MINUTE": 0,
    # The fuzzer sends thousands of requests from a few credentials: not a flood to cut.
    "LEXROOM_REQUESTS_PER_SECOND": 0,
    "LEXROOM_REQUESTS_PER_CREDENTIAL": 0,
    "ALLOWED_HOSTS": ["testserver", "localhost", "127.0.0.1"],
}


class Command(MeasurementCommand):
    help = (
        "Fuzz the tools (CLI, REST, MCP), the uploads and the OpenAPI schema (schemathesis "
        "against a live server); report every outcome as JSON."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument("--calls", type=int, default=10_000, help="Tool calls (10,000).")
        parser.add_argument("--uploads", type=int, default=10_000, help="Uploads (10,000).")
        parser.add_argument("--seed", type=int, default=0, help="Seed of the generated uploads.")
        parser.add_argument(
            "--openapi", type=int, default=10,
            help="schemathesis cases per API operation and credential kind (10; 0: skip).",
        )  # fmt: skip

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            from lab.agents.fuzz import fuzz_tools, fuzz_uploads, seed_contract
        except ImportError as exc:
            raise CommandError(
                f"fuzz needs the dev extra (pip install -e '.[dev]'): {exc}"
            ) from exc
        firm, _ = bench_workspace_find("fuzz")
        workspace, user = bench_workspace_create(
            firm=firm, slug=f"fuzz-{int(time.time())}", actor="system:fuzz"
        )
        token: PersonalToken | None = None
        try:
            seed_contract(workspace=workspace, user=user)
            token, raw = token_create(user=user, name="fuzz")
            with override_settings(**OFFLINE):
                self.note(f"Fuzzing the tools: {options['calls']} calls…")
                tools = fuzz_tools(user=user, raw_token=raw, calls=options["calls"],
                                   workspace=workspace.slug).as_dict()  # fmt: skip
                self.note(f"Fuzzing the uploads: {options['uploads']}…")
                uploads = fuzz_uploads(workspace=workspace, user=user, uploads=options["uploads"],
                                       seed=options["seed"]).as_dict()  # fmt: skip
        finally:
            # The bench user outlives the run when another run kept its workspace: a live
            # token left behind each time would reach the per-user cap.
            if token is not None:
                token_revoke(token=token, actor_label="system:fuzz")
            bench_workspace_release(workspace, keep=False, note=self.note)
        openapi = self._openapi(options["openapi"])
        ok = (
            not tools["failures_total"]
            and not uploads["crashes_total"]
            and uploads["nothing_lost"]
            and not openapi.get("failures_total")
        )
        result = {"ok": ok, "tools": tools, "uploads": uploads, "openapi": openapi}
        self.emit(result, as_json=options["json"])
        if not ok:
            raise CommandError("fuzz found failures (see the report).")

    def _openapi(self, examples: int) -> dict[str, Any]:
        """schemathesis on every operation as every credential kind ({"skipped"} for 0)."""
        if examples <= 0:
            return {"skipped": "--openapi 0"}
        from lab.agents.fuzz import fuzz_openapi, live_world

        with override_settings(**OFFLINE), live_world(secrets.token_hex(3)) as world:
            kinds = len(world.credentials)
            self.note(f"Fuzzing the OpenAPI schema on {world.base_url}: {examples} cases per "
                      f"operation and credential kind ({kinds} kinds)…")  # fmt: skip
            report = fuzz_openapi(base_url=world.base_url, credentials=world.credentials,
                                  examples=examples, pins=world.pins)  # fmt: skip
        return report.as_dict()
