"""Tool names and parameters of ArianeWebMCP, accepted as aliases of Lexroom's case-law tools
so that clients written for it keep working: ``search_decisions`` (query, jurisdiction,
classification, date_start, date_end, page, page_size) is ``search_case_law``;
``get_decision_analysis`` is ``get_analysis``; ``get_decision`` and ``get_conclusions`` are
the same names. Aliases are not listed (a model sees each tool once); a call through one runs,
is limited and is audited as the tool it names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils.translation import gettext

from agents.tools.errors import ToolError


def _search_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    translated = dict(arguments)
    for theirs, ours in (("date_start", "date_from"), ("date_end", "date_to")):
        if theirs in translated:
            translated[ours] = translated.pop(theirs)
    if translated.get("classification") == "AB":
        # Their default, A and B first: ours sorts A > B > C and falls back the same way.
        del translated["classification"]
    if "page_size" in translated:
        translated["limit"] = translated.pop("page_size")
    if "page" in translated:
        page, size = translated.pop("page"), translated.get("limit", 10)
        if not isinstance(page, int) or isinstance(page, bool) or page < 1:
            raise ToolError("invalid_arguments", gettext("page must be an integer from 1."))
        if isinstance(size, int) and not isinstance(size, bool):
            translated["offset"] = (page - 1) * size
    return translated


def _unchanged(arguments: dict[str, Any]) -> dict[str, Any]:
    return arguments


ALIASES: dict[str, tuple[str, Callable[[dict[str, Any]], dict[str, Any]]]] = {
    "search_decisions": ("search_case_law", _search_arguments),
    "get_decision_analysis": ("get_analysis", _unchanged),
}


def canonical_name(name: str) -> str:
    """The tool an alias names; any other name as it is."""
    return ALIASES[name][0] if name in ALIASES else name


def resolve_alias(name: str, arguments: Any) -> tuple[str, Any]:
    """The tool and arguments a call through an alias means (arguments that are not an
    object are left for the tool's own validation to refuse)."""
    if name not in ALIASES:
        return name, arguments
    target, translate = ALIASES[name]
    return target, translate(arguments) if isinstance(arguments, dict) else arguments
