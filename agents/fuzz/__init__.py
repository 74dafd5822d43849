"""The fuzzing harness behind ``manage.py fuzz``: tool arguments generated from each tool's
JSON schema and mutated out of it, through the CLI, REST and MCP paths, and malformed
uploads through ingestion. Runtime code never imports this package (it needs the ``dev``
extra: hypothesis, hypothesis-jsonschema)."""

from __future__ import annotations

from agents.fuzz._tools import fuzz_tools
from agents.fuzz._uploads import fuzz_uploads

__all__ = ["fuzz_tools", "fuzz_uploads"]
