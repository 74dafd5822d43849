"""Which contracts a playbook checks: ``applies_to`` in the file, by the contract's language
and type as read at ingestion. A contract whose language or type is unknown is checked (it
cannot be told apart); one outside the scope is listed in the scan's notes, not flagged."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from documents.extraction import CONTRACT_TYPES

LANGUAGES = ("fr", "en")
_TYPES = frozenset(entry.key for entry in CONTRACT_TYPES)
_FIELDS = {"languages": LANGUAGES, "contract_types": tuple(sorted(_TYPES))}


def parse_applies_to(raw: Any) -> tuple[dict[str, list[str]], list[tuple[str, str]]]:
    """``applies_to`` as stored ({"languages": [...], "contract_types": [...]}, each list
    optional) and the problems found, as (where, what)."""
    if raw is None:
        return {}, []
    if not isinstance(raw, dict):
        return {}, [("applies_to", gettext("a mapping of languages and contract_types"))]
    scope: dict[str, list[str]] = {}
    problems: list[tuple[str, str]] = []
    for name, values in raw.items():
        allowed = _FIELDS.get(str(name))
        where = f"applies_to.{name}"
        if allowed is None:
            problems.append((where, gettext("unknown field (languages, contract_types)")))
        elif not isinstance(values, list) or not values or len(values) > len(allowed):
            problems.append((where, gettext("a non-empty list")))
        elif wrong := sorted({str(v) for v in values} - set(allowed)):
            message = gettext("%(values)s: not one of %(allowed)s")
            problems.append(
                (where, message % {"values": ", ".join(wrong[:5]), "allowed": ", ".join(allowed)})
            )
        else:
            scope[str(name)] = sorted({str(v) for v in values})
    return scope, problems


def in_scope(scope: dict[str, list[str]], *, language: str, contract_type: str) -> bool:
    """Whether a contract of ``language`` and ``contract_type`` ("" when unknown) is one the
    playbook checks."""
    languages, types = scope.get("languages"), scope.get("contract_types")
    if languages and language and language not in languages:
        return False
    return not (types and contract_type and contract_type not in types)
