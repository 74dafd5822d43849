"""Which contracts a playbook, or one of its rules, checks: by the contract's language and type
as read at ingestion. ``applies_to`` (a playbook or a rule) lists the languages and types
checked; ``except_for`` (a rule) the ones it leaves out, such as a governing-law rule on
contracts French law governs whatever they say. A contract whose language or type is unknown
is checked (it cannot be told apart); one outside a playbook's scope is listed in the scan's
notes, not flagged, and so is one outside a rule's."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from documents.extraction import CONTRACT_TYPES

LANGUAGES = ("fr", "en")
_TYPES = frozenset(entry.key for entry in CONTRACT_TYPES)
_FIELDS = {"languages": LANGUAGES, "contract_types": tuple(sorted(_TYPES))}
SCOPES = ("applies_to", "except_for")  # the keys a rule may carry


def parse_applies_to(
    raw: Any, *, name: str = "applies_to"
) -> tuple[dict[str, list[str]], list[tuple[str, str]]]:
    """``applies_to`` (or ``except_for``: ``name``) as stored ({"languages": [...],
    "contract_types": [...]}, each list optional) and the problems found, as (where, what)."""
    if raw is None:
        return {}, []
    if not isinstance(raw, dict):
        return {}, [(name, gettext("a mapping of languages and contract_types"))]
    scope: dict[str, list[str]] = {}
    problems: list[tuple[str, str]] = []
    for field, values in raw.items():
        allowed = _FIELDS.get(str(field))
        where = f"{name}.{field}"
        if allowed is None:
            problems.append((where, gettext("unknown field (languages, contract_types)")))
        elif not isinstance(values, list) or not values:
            problems.append((where, gettext("a non-empty list")))
        elif wrong := sorted({str(v) for v in values} - set(allowed)):
            message = gettext("%(values)s: not one of %(allowed)s")
            problems.append(
                (where, message % {"values": ", ".join(wrong[:5]), "allowed": ", ".join(allowed)})
            )
        else:
            scope[str(field)] = sorted({str(v) for v in values})
    return scope, problems


def in_scope(scope: dict[str, list[str]], *, language: str, contract_type: str) -> bool:
    """Whether a contract of ``language`` and ``contract_type`` ("" when unknown) is one the
    playbook (or rule) of ``applies_to`` ``scope`` checks."""
    languages, types = scope.get("languages"), scope.get("contract_types")
    if languages and language and language not in languages:
        return False
    return not (types and contract_type and contract_type not in types)


def excepted(scope: dict[str, list[str]], *, language: str, contract_type: str) -> bool:
    """Whether a contract is one a rule's ``except_for`` ``scope`` leaves out: every field it
    lists names the contract's language or type, as read (an unknown one is not excepted)."""
    values = {"languages": language, "contract_types": contract_type}
    return bool(scope) and all(values.get(field, "") in listed for field, listed in scope.items())


def rule_in_scope(
    applies_to: dict[str, list[str]],
    except_for: dict[str, list[str]],
    *,
    language: str,
    contract_type: str,
) -> bool:
    """Whether a rule of these scopes checks a contract of ``language`` and ``contract_type``."""
    read = {"language": language, "contract_type": contract_type}
    return in_scope(applies_to, **read) and not excepted(except_for, **read)


def parse_rule_scopes(
    raw: dict[Any, Any],
) -> tuple[dict[str, dict[str, list[str]]], list[str]]:
    """A rule's ``applies_to`` and ``except_for`` (absent: {}), read as a playbook's, and the
    problems found, each starting with the field it is about."""
    scopes: dict[str, dict[str, list[str]]] = {}
    problems: list[str] = []
    for name in SCOPES:
        scopes[name], found = parse_applies_to(raw.get(name), name=name)
        problems += [f"{where}: {problem}" for where, problem in found]
    return scopes, problems
