"""The filters of search_data_room: parsed strictly, validated against the workspace's data.

Errors name the allowed values, so a model (or a person) calling the tool can correct itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from django.utils.translation import gettext
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from documents.clause_types import KEYS as CLAUSE_TYPE_KEYS
from search.errors import InvalidSearchArguments


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class DateRange(_Strict):
    after: date | None = Field(default=None, description="Inclusive lower bound, YYYY-MM-DD.")
    before: date | None = Field(default=None, description="Inclusive upper bound, YYYY-MM-DD.")

    @model_validator(mode="after")
    def _ordered(self) -> DateRange:
        if self.after and self.before and self.after > self.before:
            message = gettext("after (%(after)s) is later than before (%(before)s)")
            raise ValueError(message % {"after": self.after, "before": self.before})
        return self


class LawFilter(_Strict):
    in_: list[str] = Field(default_factory=list, alias="in", max_length=50)
    not_in: list[str] = Field(default_factory=list, max_length=50)


class SearchFilters(_Strict):
    entity_ids: list[int] = Field(default_factory=list, max_length=50)
    contract_types: list[str] = Field(default_factory=list, max_length=50)
    governing_law: LawFilter | None = None
    signature_date: DateRange | None = None
    end_date: DateRange | None = None
    document_ids: list[str] = Field(default_factory=list, max_length=500)
    clause_types: list[str] = Field(default_factory=list, max_length=50)


def parse_filters(raw: dict[str, Any] | None) -> SearchFilters:
    """Filters given as plain JSON (scripts, evals); the tools get theirs already parsed."""
    if raw is None:
        return SearchFilters()
    if not isinstance(raw, dict):
        raise InvalidSearchArguments(gettext("filters must be an object."))
    try:
        return SearchFilters.model_validate(raw)
    except ValidationError as exc:
        problems = [
            f"filters.{'.'.join(str(p) for p in error['loc'])}: {error['msg']}"
            for error in exc.errors()
        ]
        raise InvalidSearchArguments("; ".join(problems), {"errors": problems}) from None


@dataclass(frozen=True)
class Vocabulary:
    """What the workspace's data allows, to validate filters and to describe the room."""

    entity_ids: dict[int, str]
    contract_types: list[str]
    laws: list[str]
    refs: set[str]


def validate_against(filters: SearchFilters, vocabulary: Vocabulary) -> None:
    unknown_entities = [i for i in filters.entity_ids if i not in vocabulary.entity_ids]
    if unknown_entities:
        raise InvalidSearchArguments(
            unknown_entities_message(unknown_entities),
            {
                "field": "filters.entity_ids",
                "allowed": [
                    {"entity_id": k, "name": v} for k, v in sorted(vocabulary.entity_ids.items())
                ],
            },
        )
    _check_values("filters.contract_types", filters.contract_types, vocabulary.contract_types)
    if filters.governing_law:
        _check_values("filters.governing_law.in", filters.governing_law.in_, vocabulary.laws)
        _check_values("filters.governing_law.not_in", filters.governing_law.not_in, vocabulary.laws)
    # The taxonomy, not the workspace's data: a type no article has yet is valid (no results).
    _check_values("filters.clause_types", filters.clause_types, list(CLAUSE_TYPE_KEYS))
    unknown_refs = [ref for ref in filters.document_ids if ref not in vocabulary.refs]
    if unknown_refs:
        message = gettext(
            "Unknown document_ids %(ids)s: use contract ids (such as c01) from search_data_room "
            "results."
        )
        raise InvalidSearchArguments(
            message % {"ids": unknown_refs[:20]}, {"field": "filters.document_ids"}
        )


def _check_values(field: str, values: list[str], allowed: list[str]) -> None:
    unknown = [value for value in values if value not in allowed]
    if unknown:
        message = gettext("Unknown value(s) %(values)s for %(field)s; allowed: %(allowed)s.")
        raise InvalidSearchArguments(
            message % {"values": unknown, "field": field, "allowed": allowed},
            {"field": field, "allowed": allowed},
        )


def unknown_entities_message(unknown: list[int]) -> str:
    message = gettext("Unknown entity_ids %(ids)s; call describe_data_room for the entities.")
    return message % {"ids": unknown}
