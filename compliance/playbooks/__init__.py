"""Playbook files (YAML or JSON): read, validated rule by rule with the line of each error,
and written back out. The two default playbooks (written by us) are in ``defaults/``.

A file::

    key: fr-due-diligence          # the same across versions
    title: Audit d'acquisition
    language: fr
    description: ...
    rules:
      - key: change-of-control
        title: Changement de contrôle
        clause_type: change_of_control      # a key of the clause-type taxonomy
        kind: prohibited                    # required | prohibited | keyword | regex |
        severity: high                      #   threshold | position | llm
        explanation: Why the firm cares.
      - key: payment-45-days
        clause_type: payment_terms ...
        kind: threshold
        quantity: days                      # days | months | years | percent | amount
        op: "<="                            # <= | >= | < | >
        value: 45

Keyword rules take ``terms`` and ``must`` (``appear`` or ``absent``); regex rules ``pattern``
and ``must``; position rules ``preferred``, up to three ``fallbacks`` and ``unacceptable``;
llm rules a ``question``. Any rule may check fewer contracts than its playbook: ``applies_to``
and ``except_for`` take the playbook's ``languages`` and ``contract_types`` (see _scope), as in
``except_for: {contract_types: [employment]}``.

A playbook may add the firm's own clause types, learnt from reference examples (an article is
of the type when its stored embedding is nearer the examples' mean than every type of the
shared taxonomy, or past ``threshold`` when the file sets one, or when its heading or opening
words match ``cue``; see :mod:`compliance.custom_types`)::

    clause_types:
      - key: payment_terms            # lower case; not a key of the shared taxonomy
        label: Conditions de paiement
        examples: ["Les factures sont payables à 45 jours…", "…"]   # 1 to 20
        cue: "paiement|facturation"   # optional regular expression
        threshold: 0.5                # optional cosine similarity, 0 to 1 (kept as the bar)
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from django.utils.translation import gettext

from compliance.models import RuleKind, Severity
from compliance.patterns import PatternRefused, pattern_compile
from compliance.playbooks._scope import SCOPES, parse_applies_to, parse_rule_scopes
from compliance.playbooks._scope import in_scope as in_scope
from compliance.playbooks._scope import rule_in_scope as rule_in_scope
from compliance.playbooks._types import parse_clause_types, unknown_fields
from documents.clause_types import KEYS

DEFAULTS = Path(__file__).resolve().parent / "defaults"
QUANTITIES = ("days", "months", "years", "percent", "amount")
OPERATORS = ("<=", ">=", "<", ">")
MUSTS = ("appear", "absent")
MAX_FALLBACKS = 3
MAX_RULES = 500
# Every regex rule runs on every article of every contract scanned: their number is bounded
# as well as their time (LEXROOM_CONTRACT_PATTERN_SECONDS), so a playbook cannot be all regex.
MAX_REGEX_RULES = 100
MAX_BYTES = 1_000_000
_SLUG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,79}$")
# Keys a rule may carry besides its kind's own parameters.
COMMON = ("key", "title", "clause_type", "kind", "severity", "explanation", *SCOPES)
PARAMS: dict[str, tuple[str, ...]] = {
    RuleKind.REQUIRED: (),
    RuleKind.PROHIBITED: (),
    RuleKind.KEYWORD: ("terms", "must"),
    RuleKind.REGEX: ("pattern", "must"),
    RuleKind.THRESHOLD: ("quantity", "op", "value"),
    RuleKind.POSITION: ("preferred", "fallbacks", "unacceptable"),
    RuleKind.LLM: ("question",),
}


@dataclass
class RuleSpec:
    key: str
    title: str
    clause_type: str
    kind: str
    severity: str
    params: dict[str, Any]
    explanation: str = ""
    applies_to: dict[str, list[str]] = field(default_factory=dict)  # see _scope
    except_for: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class PlaybookSpec:
    key: str
    title: str
    language: str
    description: str
    rules: list[RuleSpec] = field(default_factory=list)
    clause_types: list[dict[str, Any]] = field(default_factory=list)
    applies_to: dict[str, list[str]] = field(default_factory=dict)  # see _scope

    def as_data(self) -> dict[str, Any]:
        """The playbook as a file holds it (export)."""
        rules = []
        for rule in self.rules:
            entry: dict[str, Any] = {"key": rule.key, "title": rule.title}
            if rule.clause_type:
                entry["clause_type"] = rule.clause_type
            entry.update(kind=rule.kind, severity=rule.severity, **rule.params)
            entry.update({name: getattr(rule, name) for name in SCOPES if getattr(rule, name)})
            if rule.explanation:
                entry["explanation"] = rule.explanation
            rules.append(entry)
        data: dict[str, Any] = {
            "key": self.key,
            "title": self.title,
            "language": self.language,
            "description": self.description,
        }
        if self.applies_to:
            data["applies_to"] = self.applies_to
        if self.clause_types:
            data["clause_types"] = self.clause_types
        return {**data, "rules": rules}


@dataclass
class Problem:
    line: int | None
    where: str
    problem: str

    def __str__(self) -> str:
        prefix = gettext("line %(line)d") % {"line": self.line} if self.line else ""
        return ": ".join(part for part in (prefix, self.where, self.problem) if part)


class PlaybookInvalid(ValueError):
    """Every problem of the file, each with its line when known."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(str(p) for p in problems))
        self.problems = problems


class _BoundedLoader(yaml.SafeLoader):
    """YAML without aliases, and bounded in depth and in nodes while it is read: ``*name`` can
    make a few lines stand for billions of values (a "billion laughs"), the composer recurses
    once per level of nesting (thousands of ``[`` end in a RecursionError), and pure-Python
    reading costs about 20 µs a node. Each bound stops the reading where it is passed."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0
        self.nodes = 0
        self.max_depth: int = settings.LEXROOM_PLAYBOOK_MAX_DEPTH
        self.max_nodes: int = settings.LEXROOM_PLAYBOOK_MAX_NODES

    def _refuse(self, problem: str) -> None:
        mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
        raise yaml.composer.ComposerError(None, None, problem, mark)

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self._refuse(gettext("aliases (*name) are not accepted"))
        self.nodes += 1
        if self.nodes > self.max_nodes:
            self._refuse(
                gettext("more than %(count)d values in the file") % {"count": self.max_nodes}
            )
        if self.depth >= self.max_depth:
            self._refuse(gettext("nested deeper than %(count)d levels") % {"count": self.max_depth})
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


def _lines(text: str) -> dict[int, int]:
    """The line (1-based) where each rule of ``rules`` starts, from the YAML nodes."""
    try:
        root = yaml.compose(text, Loader=_BoundedLoader)
    except yaml.YAMLError:
        return {}
    if not isinstance(root, yaml.MappingNode):
        return {}
    for key_node, value_node in root.value:
        if key_node.value == "rules" and isinstance(value_node, yaml.SequenceNode):
            return {i: node.start_mark.line + 1 for i, node in enumerate(value_node.value)}
    return {}


def _load(text: str) -> Any:
    if len(text.encode()) > MAX_BYTES:
        raise PlaybookInvalid([Problem(None, "", gettext("The file is over 1 MB."))])
    try:
        return yaml.load(text, Loader=_BoundedLoader)  # noqa: S506 - a SafeLoader; JSON is YAML
    except (ValueError, OverflowError):
        # A value the YAML constructor cannot make: an integer of more than 4300 digits
        # (Python's limit), a date that does not exist, "!!int abc".
        problem = gettext("not valid YAML or JSON (a number or a date that cannot be read)")
        raise PlaybookInvalid([Problem(None, "", problem)]) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = gettext("not valid YAML or JSON (%(why)s)") % {
            "why": getattr(exc, "problem", exc)
        }
        raise PlaybookInvalid([Problem(line, "", str(problem))]) from None


def parse_playbook(text: str) -> PlaybookSpec:
    """The playbook in ``text`` (YAML or JSON), or :class:`PlaybookInvalid` listing every
    problem with its line."""
    data = _load(text)
    if not isinstance(data, dict):
        raise PlaybookInvalid([Problem(1, "", gettext("a playbook is a mapping with rules"))])
    problems: list[Problem] = []
    key = str(data.get("key") or "")
    if not _SLUG.match(key):
        problems.append(Problem(None, "key", gettext("a short lower-case name is required")))
    title = str(data.get("title") or "").strip()
    if not title:
        problems.append(Problem(None, "title", gettext("required")))
    raw_rules = data.get("rules")
    if not isinstance(raw_rules, list) or not raw_rules or len(raw_rules) > MAX_RULES:
        problems.append(Problem(None, "rules", gettext("a list of 1 to 500 rules is required")))
        raw_rules = raw_rules if isinstance(raw_rules, list) else []
    problems += _regex_count_problems(raw_rules)
    if problems:  # before compiling up to 500 patterns for nothing
        raise PlaybookInvalid(problems)
    custom, found_types = parse_clause_types(data.get("clause_types"))
    problems += [Problem(None, where, problem) for where, problem in found_types]
    applies_to, found_scope = parse_applies_to(data.get("applies_to"))
    problems += [Problem(None, where, problem) for where, problem in found_scope]
    custom_keys = {entry["key"] for entry in custom}
    lines = _lines(text)
    rules, seen = [], set()
    for index, raw in enumerate(raw_rules[:MAX_RULES]):
        rule, found = _rule(raw, index, custom_keys)
        line = lines.get(index)
        problems += [Problem(line, where, problem) for where, problem in found]
        if rule is not None:
            if rule.key in seen:
                problems.append(Problem(line, rule.key, gettext("this key is used twice")))
            seen.add(rule.key)
            rules.append(rule)
    if problems:
        raise PlaybookInvalid(problems)
    language, description = (
        str(data.get("language") or "fr")[:8],
        str(data.get("description") or ""),
    )
    return PlaybookSpec(key, title, language, description, rules, custom, applies_to)


def _regex_count_problems(raw_rules: list[Any]) -> list[Problem]:
    count = sum(1 for raw in raw_rules if isinstance(raw, dict) and raw.get("kind") == "regex")
    if count <= MAX_REGEX_RULES:
        return []
    return [
        Problem(
            None,
            "rules",
            gettext(
                "%(count)d regex rules: a playbook may have at most %(limit)d (each one runs on "
                "every contract scanned)"
            )
            % {"count": count, "limit": MAX_REGEX_RULES},
        )
    ]


def _rule(
    raw: Any, index: int, custom_keys: set[str]
) -> tuple[RuleSpec | None, list[tuple[str, str]]]:
    where = f"rules[{index}]"
    if not isinstance(raw, dict):
        return None, [(where, gettext("a rule is a mapping"))]
    key = str(raw.get("key") or "")
    where = key or where
    problems: list[tuple[str, str]] = []
    if not _SLUG.match(key):
        problems.append((where, gettext("key: a short lower-case name is required")))
    kind, severity = raw.get("kind"), raw.get("severity")
    kind = kind if isinstance(kind, str) else None  # a list or a mapping is no kind
    if kind not in RuleKind.values:
        problems.append(
            (
                where,
                gettext("kind must be one of %(allowed)s")
                % {"allowed": ", ".join(RuleKind.values)},
            )
        )
    if severity not in Severity.values:
        problems.append(
            (
                where,
                gettext("severity must be one of %(allowed)s")
                % {"allowed": ", ".join(Severity.values)},
            )
        )
    clause_type = str(raw.get("clause_type") or "")
    if clause_type and clause_type not in KEYS and clause_type not in custom_keys:
        problems.append((where, gettext("unknown clause type %(type)r") % {"type": clause_type}))
    if not clause_type and kind in {
        RuleKind.REQUIRED,
        RuleKind.PROHIBITED,
        RuleKind.POSITION,
        RuleKind.THRESHOLD,
        RuleKind.LLM,
    }:
        problems.append((where, gettext("clause_type is required for this kind")))
    unknown = unknown_fields(raw, set(COMMON) | set(PARAMS.get(str(kind), ())))
    if unknown:
        problems.append((where, gettext("unknown fields: %(fields)s") % {"fields": unknown}))
    params = {name: raw[name] for name in PARAMS.get(str(kind), ()) if name in raw}
    problems += [(where, p) for p in _params_problems(str(kind), params)]
    scopes, found_scopes = parse_rule_scopes(raw)
    problems += [(where, problem) for problem in found_scopes]
    if problems:
        return None, problems
    title, explanation = str(raw.get("title") or key), str(raw.get("explanation") or "")
    kind, severity = str(kind), str(severity)
    return RuleSpec(key, title, clause_type, kind, severity, params, explanation, **scopes), []


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)


def _params_problems(kind: str, params: dict[str, Any]) -> list[str]:
    problems = []
    if kind in {RuleKind.KEYWORD, RuleKind.REGEX} and params.get("must") not in MUSTS:
        problems.append(gettext("must: appear or absent"))
    if kind == RuleKind.KEYWORD and not (_strings(params.get("terms")) and params["terms"]):
        problems.append(gettext("terms: a list of words or phrases is required"))
    if kind == RuleKind.REGEX:
        if not isinstance(params.get("pattern"), str) or not params["pattern"]:
            problems.append(gettext("pattern is required"))
        else:
            try:
                pattern_compile(params["pattern"])  # as the scan runs it
            except PatternRefused as exc:
                problems.append(gettext("pattern: %(why)s") % {"why": exc})
    if kind == RuleKind.THRESHOLD:
        if params.get("quantity") not in QUANTITIES:
            problems.append(
                gettext("quantity (the unit) must be one of %(allowed)s")
                % {"allowed": ", ".join(QUANTITIES)}
            )
        if params.get("op") not in OPERATORS:
            problems.append(
                gettext("op must be one of %(allowed)s") % {"allowed": " ".join(OPERATORS)}
            )
        if not _finite_number(params.get("value")):
            problems.append(gettext("value must be a number"))
    if kind == RuleKind.POSITION:
        problems += _position_problems(params)
    if kind == RuleKind.LLM and not _text(params.get("question")):
        problems.append(gettext("question is required"))
    return problems


def _text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _finite_number(value: Any) -> bool:
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)  # NaN and infinities compare with nothing
    except OverflowError:  # an integer too large for a float
        return False


def _position_problems(params: dict[str, Any]) -> list[str]:
    problems = []
    if not _text(params.get("preferred")):
        problems.append(gettext("preferred: the firm's wording is required"))
    for name in ("fallbacks", "unacceptable"):
        if name in params and not _strings(params[name]):
            problems.append(gettext("%(name)s: a list of wordings") % {"name": name})
    fallbacks = params.get("fallbacks")
    if isinstance(fallbacks, list) and len(fallbacks) > MAX_FALLBACKS:
        problems.append(gettext("at most 3 fallbacks"))
    return problems


def dump_playbook(spec: PlaybookSpec, *, fmt: str = "yaml") -> str:
    data = spec.as_data()
    if fmt == "json":
        return json.dumps(data, ensure_ascii=False, indent=2)
    return str(yaml.safe_dump(data, allow_unicode=True, sort_keys=False))


def default_playbooks() -> list[Path]:
    return sorted(DEFAULTS.glob("*.yaml"))
