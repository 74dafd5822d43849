"""The conditions a query's words state, applied as filters (see :mod:`search.conditions`).

Explicit filters win: a field the caller filtered on is not read from the words (they stay in
the ranked text). What is left of the query is what is ranked; when nothing is left but
common words ("quels contrats", "the contracts"), the search lists the contracts passing the
filters, exhaustively, as a search without a query does.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.utils.translation import gettext

from documents import provenance
from documents.models import Document, Entity
from search.conditions import (
    FIELDS,
    Condition,
    PartyName,
    QueryVocabulary,
    query_words,
    read_conditions,
)
from search.errors import InvalidSearchArguments
from search.filters import DateRange, LawFilter, SearchFilters
from search.ranking import has_content_word
from search.results import InterpretedFilter
from search.selectors._common import SEARCHABLE
from search.selectors._filtering import _with_families
from workspaces.models import Workspace

# Parties a query's words may name, looked up by those words: the first ones by id past this
# (a bound on the work a query costs).
MAX_PARTIES = 10_000
_MAX_LOOKUP_WORDS = 200
# Words too common to look a party up by (a name is found by its other words).
_NOT_NAMES = frozenset(
    {"de", "la", "le", "les", "des", "du", "et", "and", "the", "of", "en", "in", "a", "au",
     "aux", "sa", "sas", "sarl", "inc", "ltd", "llc", "co"}
)  # fmt: skip


@dataclass(frozen=True)
class Interpretation:
    query: str | None  # what is left to rank
    filters: SearchFilters  # the explicit filters with the conditions read
    read: list[InterpretedFilter]


def check_not_interpreted(fields: Collection[str]) -> None:
    unknown = sorted(set(fields) - set(FIELDS))
    if unknown:
        message = gettext("Unknown field(s) %(fields)s for not_interpreted; allowed: %(allowed)s.")
        raise InvalidSearchArguments(
            message % {"fields": unknown, "allowed": list(FIELDS)},
            {"field": "not_interpreted", "allowed": list(FIELDS)},
        )


def interpret(
    *, workspace: Workspace, query: str, filters: SearchFilters, ignore: Collection[str]
) -> Interpretation:
    """``query``'s conditions on the fields neither ``filters`` nor ``ignore`` name, merged
    into ``filters``; the query and filters unchanged when it states none."""
    skipped = set(ignore) | _explicit_fields(filters)
    if skipped >= set(FIELDS):
        return Interpretation(query, filters, [])
    vocabulary = _vocabulary(workspace, skipped, query_words(query))
    reading = read_conditions(query, vocabulary, ignore=skipped)
    if not reading.conditions:
        return Interpretation(query, filters, [])
    # Nothing left but common words ("quels contrats"): the search lists, it ranks nothing.
    leftover = reading.leftover if reading.leftover and has_content_word(reading.leftover) else None
    names = {party.entity_id: party.name for party in vocabulary.parties}
    read = [_as_result(condition, names) for condition in reading.conditions]
    return Interpretation(leftover, _merged(filters, reading.conditions), read)


def _explicit_fields(filters: SearchFilters) -> set[str]:
    law, signed, ends = filters.governing_law, filters.signature_date, filters.end_date
    present = {
        "entity_ids": bool(filters.entity_ids),
        "contract_types": bool(filters.contract_types),
        "governing_law": bool(law and (law.in_ or law.not_in)),
        "signature_date": bool(signed and (signed.after or signed.before)),
        "end_date": bool(ends and (ends.after or ends.before)),
    }
    return {name for name, is_set in present.items() if is_set}


def _vocabulary(workspace: Workspace, skipped: set[str], words: set[str]) -> QueryVocabulary:
    """What the workspace's searchable contracts have, for the fields still to read."""
    documents = Document.objects.filter(workspace=workspace, status__in=SEARCHABLE).order_by()
    laws = (
        documents.exclude(governing_law="").values_list("governing_law", flat=True).distinct()
        if "governing_law" not in skipped
        else []
    )
    types = (
        documents.exclude(contract_type="").values_list("contract_type", flat=True).distinct()
        if "contract_types" not in skipped
        else []
    )
    parties = _parties(workspace, words) if "entity_ids" not in skipped else ()
    return QueryVocabulary(frozenset(laws), frozenset(_with_families(types)), parties)


def _parties(workspace: Workspace, words: set[str]) -> tuple[PartyName, ...]:
    """The parties of searchable contracts whose folded name (``Entity.key``) holds a word of
    the query: the others cannot be named by it."""
    wanted = sorted(w for w in words if len(w) >= 2 and w not in _NOT_NAMES)[:_MAX_LOOKUP_WORDS]
    if not wanted:
        return ()
    # Folded words are [a-z0-9]+: nothing in them is a regex operator.
    holds_a_word = rf"(^| )({'|'.join(wanted)})( |$)"
    rows = (
        Entity.objects.filter(
            workspace=workspace,
            merged_into__isnull=True,
            parties__document__status__in=SEARCHABLE,
            key__regex=holds_a_word,
        )
        .distinct()
        .order_by("id")
        .values_list("id", "name", "aliases", "key")[:MAX_PARTIES]
    )
    return tuple(
        PartyName(entity_id, name, tuple(a for a in aliases or () if isinstance(a, str)), key)
        for entity_id, name, aliases, key in rows
    )


def _merged(filters: SearchFilters, conditions: list[Condition]) -> SearchFilters:
    def values(field: str) -> list[Any]:
        found = [c.value for c in conditions if c.field == field]
        return found if field.endswith("_date") else list(dict.fromkeys(found))

    update: dict[str, Any] = {}
    if entity_ids := values("entity_ids"):
        update["entity_ids"] = entity_ids
    if types := values("contract_types"):
        update["contract_types"] = types
    if laws := values("governing_law"):
        update["governing_law"] = LawFilter.model_validate({"in": laws})
    for field in ("signature_date", "end_date"):
        bounds: dict[str, date] = {}
        for value in values(field):
            bounds.update(value)
        if bounds:
            update[field] = DateRange(**bounds)
    return filters.model_copy(update=update)


def _as_result(condition: Condition, names: dict[int, str]) -> InterpretedFilter:
    value = condition.value
    if isinstance(value, dict):
        shown: Any = {
            bound: value[bound].isoformat() if bound in value else None
            for bound in ("after", "before")
        }
    else:
        shown = value
    return InterpretedFilter(
        field=condition.field, value=shown, label=_label(condition, names), words=condition.words
    )


def _label(condition: Condition, names: dict[int, str]) -> str:
    value = condition.value
    if condition.field == "entity_ids":
        return gettext("party: %(name)s") % {"name": names.get(int(str(value)), value)}
    if condition.field == "contract_types":
        return gettext("type: %(type)s") % {"type": provenance.contract_type_label(str(value))}
    if condition.field == "governing_law":
        return gettext("governing law: %(law)s") % {
            "law": provenance.governing_law_label(str(value))
        }
    assert isinstance(value, dict)  # noqa: S101 - dates are the other fields
    after, before = value.get("after"), value.get("before")
    signed = condition.field == "signature_date"
    if after and before:
        text = (
            gettext("signed from %(after)s to %(before)s")
            if signed
            else gettext("ending from %(after)s to %(before)s")
        )
    elif before:
        text = (
            gettext("signed on or before %(before)s")
            if signed
            else gettext("ending on or before %(before)s")
        )
    else:
        text = (
            gettext("signed on or after %(after)s")
            if signed
            else gettext("ending on or after %(after)s")
        )
    return text % {"after": after, "before": before}
