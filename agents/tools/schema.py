"""JSON Schemas that small local models can read: no $ref, no anyOf, no $defs."""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel


def flatten_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's input schema with references inlined and ``X | None`` reduced to ``X``."""
    schema = model.model_json_schema(by_alias=True)
    definitions = schema.pop("$defs", {})
    flat: dict[str, Any] = _inline(schema, definitions)
    flat.pop("title", None)
    return flat


def _inline(node: Any, definitions: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_inline(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = definitions[node["$ref"].rsplit("/", 1)[-1]]
        merged = {**copy.deepcopy(target), **{k: v for k, v in node.items() if k != "$ref"}}
        return _inline(merged, definitions)
    if "anyOf" in node:
        options = [o for o in node["anyOf"] if o.get("type") != "null"]
        if len(options) == 1:
            rest = {k: v for k, v in node.items() if k != "anyOf"}
            merged = {**_inline(options[0], definitions), **rest}
            if merged.get("default", "absent") is None:
                merged.pop("default")
            return _inline(merged, definitions)
    result = {}
    for key, value in node.items():
        if key == "title":
            continue  # noise for a model; the description says it
        result[key] = _inline(value, definitions)
    return result
