"""The OpenAPI schema (``/api/schema/``) fuzzed with schemathesis against a live server: every
operation, as every credential kind of the permission matrix, through schemathesis's own
checks. A failed check, a request that raised, a dead credential or a stranger let in is a
failure. The world it runs in (lab.agents.fuzz._live) is given: a base URL and credentials."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import requests
import schemathesis
import schemathesis.checks
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import Case, GenerationMode
from schemathesis.core.failures import FailureGroup
from schemathesis.core.result import Ok

from lab.agents.fuzz._tools import _examples

SCHEMA_PATH = "/api/schema/?format=json"
# Run on every response. What schemathesis also offers and is not run here, and why:
CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "negative_data_rejection",
)
NOT_RUN = {
    "positive_data_acceptance": "schema-valid is not enough for a 2xx by design: one path "
    "takes every tool's arguments (a oneOf; the name in the path says which applies) and an "
    "upload's bytes must be a document; both refuse with 400 and a reason",
    "use_after_free, ensure_resource_availability": "stateful (they follow links between "
    "operations); the schema declares none",
    "ignored_auth, missing_required_header": "authentication is what the credential kinds "
    "vary: the rules dead_credential_refused and stranger_refused check it on every answer",
    "max_response_time": "a load measure (bench_mcp, bench_web), not a conformance check",
}
# The permission matrix's credential kinds (tests/helpers/permissions.py).
DEAD = ("anonymous", "token_expired", "token_revoked")
STRANGERS = ("outsider", "foreigner", "token_other_ws")


@dataclass(frozen=True)
class Credential:
    kind: str
    headers: dict[str, str] = field(default_factory=dict)
    cookies: dict[str, str] = field(default_factory=dict)


@dataclass
class OpenApiFuzzReport:
    examples: int = 0
    requests: int = 0
    seconds: float = 0.0
    operations: list[str] = field(default_factory=list)
    credentials: list[str] = field(default_factory=list)
    statuses: dict[str, Counter[str]] = field(default_factory=dict)
    by_operation: dict[str, Counter[str]] = field(default_factory=dict)
    dependency_offline: int = 0
    naming_the_room: int = 0  # requests the stranger rule applies to
    # Kinds of case that do not exist for an operation (negative data for one without input).
    unsatisfiable: set[str] = field(default_factory=set)
    failures: dict[tuple[str, str, str, str], dict[str, Any]] = field(default_factory=dict)

    def fail(self, *, operation: str, credential: str, check: str, status: str, why: str) -> None:
        """One entry per (operation, credential, check, status), counted."""
        key = (operation, credential, check, status)
        entry = self.failures.setdefault(key, {"operation": operation, "credential": credential,
                                               "check": check, "status": status,
                                               "message": why[:400], "count": 0})  # fmt: skip
        entry["count"] += 1

    def as_dict(self) -> dict[str, Any]:
        entries = sorted(self.failures.values(), key=lambda e: -int(e["count"]))
        return {
            "examples_per_operation": self.examples,
            "requests": self.requests,
            "seconds": round(self.seconds, 1),
            "operations": self.operations,
            "credentials": self.credentials,
            "cases_by_credential": {k: sum(c.values()) for k, c in sorted(self.statuses.items())},
            "statuses_by_credential": _sorted(self.statuses),
            "statuses_by_operation": _sorted(self.by_operation),
            "dependency_offline_503": self.dependency_offline,
            "requests_naming_the_room": self.naming_the_room,
            "no_such_cases": sorted(self.unsatisfiable),
            "checks": [*CHECKS, "dead_credential_refused", "stranger_refused"],
            "checks_not_run": NOT_RUN,
            "failures": entries[:30],
            "failures_total": sum(int(e["count"]) for e in entries),
        }


def _sorted(counters: dict[str, Counter[str]]) -> dict[str, dict[str, int]]:
    return {key: dict(sorted(counts.items())) for key, counts in sorted(counters.items())}


# --- Collecting ---------------------------------------------------------------------------


def collect(
    report: OpenApiFuzzReport,
    case: Case[Any],
    response: schemathesis.Response,
    credential: Credential,
    *,
    pinned: bool,
) -> None:
    """Record the answer to ``case`` and every check that fails on it."""
    label, status = case.operation.label, str(response.status_code)
    report.requests += 1
    report.statuses.setdefault(credential.kind, Counter())[status] += 1
    report.by_operation.setdefault(label, Counter())[status] += 1
    report.naming_the_room += pinned
    for name, why in _access_failures(credential.kind, response.status_code, pinned=pinned):
        report.fail(operation=label, credential=credential.kind, check=name, status=status,
                    why=why)  # fmt: skip
    if _dependency_offline(case, response):
        # The case-law sites point at a closed port: the documented 503 of a dependency down
        # by the fuzz's own configuration (counted apart, as by the tool fuzz).
        report.dependency_offline += 1
        return
    for name in CHECKS:
        check = getattr(schemathesis.checks, name)
        try:
            case.validate_response(response, checks=[check], headers=credential.headers)
        except FailureGroup as group:
            for failure in group.exceptions:
                report.fail(operation=label, credential=credential.kind, check=name,
                            status=status, why=f"{failure.title}: {failure.message}")  # fmt: skip


def _access_failures(kind: str, status: int, *, pinned: bool) -> Iterator[tuple[str, str]]:
    """The matrix's two rules every operation keeps: no 2xx without a live credential, and
    none for a stranger to the room (``pinned``: the request names the fuzz room)."""
    if not 200 <= status < 300:
        return
    if kind in DEAD:
        yield "dead_credential_refused", f"{kind} got {status}"
    elif kind in STRANGERS and pinned:
        yield "stranger_refused", f"{kind} got {status} on the room"


def _dependency_offline(case: Case[Any], response: schemathesis.Response) -> bool:
    if response.status_code != 503 or not case.operation.path.startswith("/api/tools/"):
        return False
    try:
        body = response.json()
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("error") == "unavailable"


# --- Fuzzing ------------------------------------------------------------------------------


def fuzz_openapi(
    *, base_url: str, credentials: list[Credential], examples: int, pins: dict[str, str]
) -> OpenApiFuzzReport:
    """About ``examples`` cases per operation and credential kind: valid data with the path
    naming the room (``pins``), valid data anywhere, and invalid data (schemathesis's
    negative mode)."""
    report = OpenApiFuzzReport(examples=examples, credentials=[c.kind for c in credentials])
    # The schema is served to signed-in callers only: read with the read-only token.
    reader = next((c for c in credentials if c.kind == "token_ro"), None)
    if reader is None:
        raise ValueError("the credentials need a token_ro to read the schema with")
    config = schemathesis.Config.from_dict(
        {"base-url": base_url, "generation": {"with-security-parameters": False}}
    )
    schema = schemathesis.openapi.from_url(
        base_url + SCHEMA_PATH, config=config, headers=reader.headers, timeout=60
    )
    started = time.perf_counter()
    with requests.Session() as session:
        for result in schema.get_all_operations():
            if not isinstance(result, Ok):
                report.fail(operation="(schema)", credential="-", check="schema_loads",
                            status="-", why=str(result.err()))  # fmt: skip
                continue
            operation = result.ok()
            report.operations.append(operation.label)
            for bucket in _buckets(operation, pins, examples):
                for credential in credentials:
                    call = _caller(report, session, credential, base_url,
                                   pinned=bucket.pinned, room=pins.get("slug", ""))  # fmt: skip
                    _run(report, f"{operation.label} ({bucket.name})", credential, bucket, call)
    report.seconds = time.perf_counter() - started
    return report


@dataclass(frozen=True)
class _Bucket:
    name: str
    strategy: st.SearchStrategy[Case[Any]]
    pinned: bool  # the path names the room
    count: int


def _buckets(operation: Any, pins: dict[str, str], examples: int) -> list[_Bucket]:
    """The budget split over the kinds of case: valid data naming the room's objects, valid
    data anywhere, invalid data."""
    names = {parameter.name for parameter in operation.path_parameters}
    pinned = {name: value for name, value in pins.items() if name in names}
    kinds = [
        ("valid", operation.as_strategy(GenerationMode.POSITIVE), False),
        ("invalid", operation.as_strategy(GenerationMode.NEGATIVE), False),
    ]
    if pinned:
        strategy = operation.as_strategy(GenerationMode.POSITIVE, path_parameters=pinned)
        kinds.insert(0, ("valid, in the room", strategy, "slug" in pinned))
    elif operation.path.startswith("/api/tools/") and "slug" in pins:
        # The tool names its workspace in the body: the room's, wherever an argument has it.
        room = pins["slug"]
        strategy = operation.as_strategy(GenerationMode.POSITIVE).map(
            lambda case: _in_body(case, room)
        )
        kinds.insert(0, ("valid, in the room", strategy, True))
    share, rest = divmod(examples, len(kinds))
    buckets = [_Bucket(*kind, share + (i < rest)) for i, kind in enumerate(kinds)]
    return [bucket for bucket in buckets if bucket.count > 0]


def _in_body(case: Case[Any], room: str) -> Case[Any]:
    if isinstance(case.body, dict) and "workspace" in case.body:
        case.body["workspace"] = room
    return case


def names_room(case: Case[Any], room: str) -> bool:
    """Whether the request names the fuzz room: its path's slug, or a tool's workspace."""
    if (case.path_parameters or {}).get("slug") == room:
        return True
    return isinstance(case.body, dict) and case.body.get("workspace") == room


def _caller(
    report: OpenApiFuzzReport,
    session: requests.Session,
    credential: Credential,
    base_url: str,
    *,
    pinned: bool,
    room: str,
) -> Callable[[Case[Any]], None]:
    def call(case: Case[Any]) -> None:
        try:
            response = case.call(base_url=base_url, session=session, headers=credential.headers,
                                 cookies=credential.cookies, timeout=60)  # fmt: skip
        except requests.RequestException as exc:  # no answer at all: recorded, run goes on
            why = f"{type(exc).__name__}: {exc}"
            report.fail(operation=case.operation.label, credential=credential.kind,
                        check="exception", status="-", why=why)  # fmt: skip
            return
        finally:
            # The credential is the kind's alone: no cookie set by an answer is sent again.
            session.cookies.clear()
        collect(report, case, response, credential, pinned=pinned and names_room(case, room))

    return call


def _run(
    report: OpenApiFuzzReport,
    label: str,
    credential: Credential,
    bucket: _Bucket,
    call: Callable[[Case[Any]], None],
) -> None:
    try:
        _examples(bucket.strategy, bucket.count)(call)
    except Unsatisfiable:
        if bucket.pinned:  # the stranger rule would silently check nothing
            report.fail(operation=label, credential=credential.kind, check="pinned_cases",
                        status="-", why="no case naming the room could be generated")  # fmt: skip
        report.unsatisfiable.add(label)
    except Exception as exc:  # a schema schemathesis cannot generate for, a check that broke
        report.fail(operation=label, credential=credential.kind, check="exception",
                    status="-", why=f"{type(exc).__name__}: {exc}")  # fmt: skip
