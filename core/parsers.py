"""The JSON parser every REST endpoint uses, and the nesting bound tool arguments share."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

# Real arguments nest a few levels (filters → date range); this is far beyond them and far
# below what would exhaust Python's stack anywhere later (audit digests, validation).
MAX_JSON_DEPTH = 32


def json_depth(value: Any) -> int:
    """How deep ``value`` nests, walked without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in item)
    return deepest


def json_has_nul(value: Any) -> bool:
    """Whether a key or a string of ``value`` holds a NUL character (Postgres text cannot
    store one: refused as bad input rather than failing in the database)."""
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


class BoundedJSONParser(JSONParser):
    """JSON bodies nested deeper than :data:`MAX_JSON_DEPTH` are a 400, never a 500."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(_("JSON nested too deeply.")) from None
        if json_depth(data) > MAX_JSON_DEPTH:
            raise ParseError(
                _("JSON nested too deeply (at most %(depth)d levels).") % {"depth": MAX_JSON_DEPTH}
            )
        return data
