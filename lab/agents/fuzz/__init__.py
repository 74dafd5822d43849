"""The fuzzing harness behind ``manage.py fuzz``: tool arguments generated from each tool's
JSON schema and mutated out of it, through the CLI, REST and MCP paths; malformed uploads
through ingestion; and the OpenAPI schema run by schemathesis against a live server as every
credential kind. Runtime code never imports this package (it needs the ``dev`` extra:
hypothesis, hypothesis-jsonschema, schemathesis)."""

from __future__ import annotations

from lab.agents.fuzz._live import live_world, seed_contract
from lab.agents.fuzz._openapi import fuzz_openapi
from lab.agents.fuzz._tools import fuzz_tools
from lab.agents.fuzz._uploads import fuzz_uploads

__all__ = ["fuzz_openapi", "fuzz_tools", "fuzz_uploads", "live_world", "seed_contract"]
