"""JSON Schemas that small local models can read: no $ref, no anyOf, no $defs."""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel


def flatten_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's input schema with references inlined and ``X | None`` reduced to ``X``
    (an argument left out is the same as null)."""
    return _flat(model.model_json_schema(by_alias=True), nullable=False)


def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's output schema, inlined the same way; ``X | None`` becomes X's type with
    ``"null"`` added (results send every key, unknown values as null)."""
    return _flat(model.model_json_schema(by_alias=True, mode="serialization"), nullable=True)


def _flat(schema: dict[str, Any], *, nullable: bool) -> dict[str, Any]:
    definitions = schema.pop("$defs", {})
    flat: dict[str, Any] = _inline(schema, definitions, nullable)
    flat.pop("title", None)
    return flat


def _inline(node: Any, definitions: dict[str, Any], nullable: bool) -> Any:
    if isinstance(node, list):
        return [_inline(item, definitions, nullable) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = definitions[node["$ref"].rsplit("/", 1)[-1]]
        merged = {**copy.deepcopy(target), **{k: v for k, v in node.items() if k != "$ref"}}
        return _inline(merged, definitions, nullable)
    if "anyOf" in node:
        options = [o for o in node["anyOf"] if o.get("type") != "null"]
        if len(options) == 1:
            rest = {k: v for k, v in node.items() if k != "anyOf"}
            merged = {**_inline(options[0], definitions, nullable), **rest}
            if merged.get("default", "absent") is None:
                merged.pop("default")
            if nullable and len(options) < len(node["anyOf"]) and "type" in merged:
                merged["type"] = [merged["type"], "null"]
            return _inline(merged, definitions, nullable)
    result = {}
    for key, value in node.items():
        if key == "title":
            continue  # noise for a model; the description says it
        if key == "properties":  # names, not keywords: a field may be called "title"
            result[key] = {name: _inline(v, definitions, nullable) for name, v in value.items()}
        else:
            result[key] = _inline(value, definitions, nullable)
    return result
