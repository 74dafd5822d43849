"""A playbook's own clause types: validated here, learnt from their examples at scan time."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext

from compliance.patterns import PatternRefused, pattern_compile
from documents.clause_types import KEYS

_KEY = re.compile(r"^[a-z][a-z0-9_]{1,63}$")
MAX_EXAMPLES = 20
MAX_EXAMPLE_CHARS = 4000
MAX_TYPES = 50  # each type's examples are encoded at every scan
FIELDS = {"key", "label", "examples", "cue", "threshold"}


def unknown_fields(raw: dict[Any, Any], allowed: set[str]) -> str:
    """The fields of ``raw`` not in ``allowed``, for a message ("" when none); a YAML key may
    be a number or null, not only text."""
    return ", ".join(sorted(str(name) for name in raw if name not in allowed))


def parse_clause_types(raw: Any) -> tuple[list[dict[str, Any]], list[tuple[str, str]]]:
    """The ``clause_types`` section, normalised, and its problems as (where, problem)."""
    if raw is None:
        return [], []
    if not isinstance(raw, list):
        return [], [("clause_types", gettext("a list of clause types"))]
    if len(raw) > MAX_TYPES:
        return [], [("clause_types", gettext("at most 50 clause types"))]
    types: list[dict[str, Any]] = []
    problems: list[tuple[str, str]] = []
    seen: set[str] = set()
    for index, entry in enumerate(raw):
        where = f"clause_types[{index}]"
        if not isinstance(entry, dict):
            problems.append((where, gettext("a clause type is a mapping")))
            continue
        key = str(entry.get("key") or "")
        where = key or where
        found = _problems(entry, key, seen)
        problems += [(where, problem) for problem in found]
        seen.add(key)
        if not found:
            kept: dict[str, Any] = {"key": key, "label": str(entry["label"]).strip(),
                    "examples": [str(e).strip() for e in entry["examples"]]}  # fmt: skip
            if entry.get("cue"):
                kept["cue"] = str(entry["cue"])
            if entry.get("threshold") is not None:
                kept["threshold"] = float(entry["threshold"])
            types.append(kept)
    return types, problems


def _problems(entry: dict[str, Any], key: str, seen: set[str]) -> list[str]:
    problems = []
    if not _KEY.match(key):
        problems.append(gettext("key: lower-case letters, digits and _"))
    elif key in KEYS:
        problems.append(gettext("%(key)s is a type of the shared taxonomy") % {"key": key})
    elif key in seen:
        problems.append(gettext("this key is used twice"))
    if not str(entry.get("label") or "").strip():
        problems.append(gettext("label is required"))
    examples = entry.get("examples")
    if (
        not isinstance(examples, list)
        or not 1 <= len(examples) <= MAX_EXAMPLES
        or not all(isinstance(e, str) and 0 < len(e.strip()) <= MAX_EXAMPLE_CHARS for e in examples)
    ):
        problems.append(gettext("examples: 1 to 20 passages of text"))
    unknown = unknown_fields(entry, FIELDS)
    if unknown:
        problems.append(gettext("unknown fields: %(fields)s") % {"fields": unknown})
    if entry.get("cue"):
        try:
            pattern_compile(str(entry["cue"]), ignore_case=True)  # as the scan runs it
        except PatternRefused as exc:
            problems.append(gettext("cue: %(why)s") % {"why": exc})
    threshold = entry.get("threshold")
    if threshold is not None and (
        isinstance(threshold, bool) or not isinstance(threshold, int | float)
        or not 0 < threshold <= 1  # NaN compares with nothing: refused too
    ):  # fmt: skip
        problems.append(gettext("threshold: a number between 0 and 1"))
    return problems
