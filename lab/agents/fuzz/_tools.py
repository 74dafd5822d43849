"""Tool calls generated from each tool's input schema (valid), and mutated out of it
(wrong types, unknown keys, huge strings, deep nesting, non-objects), each sent through one
surface in turn: the ``call_tool`` command (exit 0 or 2), REST ``POST /api/tools/<name>``
(2xx or 4xx) and the MCP server's call handler (a result or ``isError``). Anything else is a
failure: a 5xx, another exit code, an exception escaping the handler."""

from __future__ import annotations

import io
import json
import time
from collections import Counter
from collections.abc import Callable
from contextlib import redirect_stderr
from dataclasses import dataclass, field
from typing import Any

from django.core.management import call_command
from django.test import Client
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from agents.mcp.server import Caller, call_result
from agents.tools import ToolError, tool_definitions
from workspaces.models import User

SURFACES = ("cli", "rest", "mcp")
# Not fuzzed: the agent runs a whole LLM turn per call (measured by eval_agent instead).
SKIPPED = frozenset({"ask"})
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@dataclass
class ToolFuzzReport:
    calls: int = 0
    seconds: float = 0.0
    outcomes: Counter[str] = field(default_factory=Counter)
    by_tool: Counter[str] = field(default_factory=Counter)
    failures: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "seconds": round(self.seconds, 1),
            "outcomes": dict(sorted(self.outcomes.items())),
            "by_tool": dict(sorted(self.by_tool.items())),
            "failures": self.failures[:20],
            "failures_total": len(self.failures),
        }


def _mutated(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Arguments out of the schema: a valid call with one value replaced or a key added,
    or no object at all."""
    valid = from_schema(schema)
    keys = sorted(schema.get("properties", {}))
    replace = st.tuples(valid, st.sampled_from(keys or ["x"]), JSON).map(
        lambda t: {**t[0], t[1]: t[2]} if isinstance(t[0], dict) else t[0]
    )
    extra = st.tuples(valid, st.text(min_size=1, max_size=12), JSON).map(
        lambda t: {**t[0], t[1]: t[2]} if isinstance(t[0], dict) else t[0]
    )
    huge = st.sampled_from(keys or ["x"]).map(lambda k: {k: "x" * 200_000})
    deep = st.integers(20, 200).map(lambda n: json.loads("[" * n + "]" * n))
    return st.one_of(replace, extra, huge, deep.map(lambda d: {"q": d}), JSON)


class _Runner:
    def __init__(self, user: User, raw_token: str, report: ToolFuzzReport) -> None:
        self.user, self.report = user, report
        self.client = Client(HTTP_AUTHORIZATION=f"Bearer {raw_token}")
        self.caller = Caller(user=user, token=None, via="mcp")

    def call(self, name: str, arguments: Any) -> None:
        surface = SURFACES[self.report.calls % len(SURFACES)]
        self.report.calls += 1
        self.report.by_tool[name] += 1
        try:
            outcome = getattr(self, surface)(name, arguments)
        except Exception as exc:  # the very thing looked for: it must be recorded, not raised
            outcome = f"{surface}:exception"
            self.report.failures.append(
                {
                    "surface": surface,
                    "tool": name,
                    "error": f"{type(exc).__name__}: {exc}"[:300],
                    "arguments": json.dumps(arguments, default=str)[:300],
                }
            )
        self.report.outcomes[outcome] += 1
        if outcome.endswith(("5xx", "exit_other")):
            self.report.failures.append(
                {
                    "surface": surface,
                    "tool": name,
                    "outcome": outcome,
                    "arguments": json.dumps(arguments, default=str)[:300],
                }
            )

    def cli(self, name: str, arguments: Any) -> str:
        out, err = io.StringIO(), io.StringIO()
        try:
            with redirect_stderr(err):
                # "--": arguments that read like an option ("-1e-05") stay the JSON argument.
                call_command("call_tool", "--user", self.user.email, name, "--",
                             json.dumps(arguments), stdout=out, stderr=err)  # fmt: skip
        except SystemExit as exc:
            return "cli:exit_2" if exc.code == 2 else "cli:exit_other"
        return "cli:exit_0"

    def rest(self, name: str, arguments: Any) -> str:
        response = self.client.post(f"/api/tools/{name}", json.dumps(arguments),
                                  content_type="application/json")  # fmt: skip
        if response.status_code == 503 and response.json().get("error") == "unavailable":
            # A dependency down by the fuzz's own configuration (the case-law sites point at
            # a closed port): the documented 503, not a fault of the server.
            return "rest:503_dependency_offline"
        return f"rest:{response.status_code // 100}xx"

    def mcp(self, name: str, arguments: Any) -> str:
        try:
            call_result(self.caller, name, arguments if isinstance(arguments, dict) else {})
        except ToolError:
            return "mcp:is_error"
        return "mcp:result"


def fuzz_tools(*, user: User, raw_token: str, calls: int, workspace: str) -> ToolFuzzReport:
    """About ``calls`` calls, spread over the tools, half valid and half mutated."""
    report = ToolFuzzReport()
    runner = _Runner(user, raw_token, report)
    definitions = [d for d in tool_definitions() if d["name"] not in SKIPPED]
    per_tool = max(2, calls // (2 * len(definitions)))
    started = time.perf_counter()
    for definition in definitions:
        name, schema = definition["name"], definition["inputSchema"]
        in_room = "workspace" in schema.get("properties", {})
        call = _caller(runner, name, workspace if in_room else None)
        for strategy in (from_schema(schema), _mutated(schema)):
            _examples(strategy, per_tool)(call)
    report.seconds = time.perf_counter() - started
    return report


def _caller(runner: _Runner, name: str, workspace: str | None) -> Callable[[Any], None]:
    def call(arguments: Any) -> None:
        runner.call(name, _with_room(arguments, workspace))

    return call


def _with_room(arguments: Any, workspace: str | None) -> Any:
    """A call of a workspace's tool names the fuzz workspace unless it names another."""
    if workspace and isinstance(arguments, dict) and "workspace" not in arguments:
        return {**arguments, "workspace": workspace}
    return arguments


def _examples(
    strategy: st.SearchStrategy[Any], count: int
) -> Callable[[Callable[[Any], None]], None]:
    """Run ``test`` on ``count`` examples of ``strategy`` (no example database, no shrink)."""

    def run(test: Callable[[Any], None]) -> None:
        configured = settings(
            max_examples=count, database=None, deadline=None, derandomize=True,
            phases=[Phase.generate], suppress_health_check=list(HealthCheck),
        )  # fmt: skip
        configured(given(strategy)(test))()

    return run
