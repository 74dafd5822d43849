"""The Brenalis data room: the original tool's reference answers, plus a lawyer's own checks
and conditions written in queries.

Expected sets were read off the data room by hand (metadata and contract texts), not taken
from the system's output; each check reports what it expected and what it got.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lab.search.evals._index import IndexedCorpus, scope
from search.selectors.plain import describe_data_room, find_duplicates, search_data_room

# Contracts by hand from exemple_data_room.json (c01..c20 in file order).
SIGNED_IN_2025 = ["c01", "c04", "c08", "c10", "c12", "c13", "c14"]
COMMERCIAL_LEASES = ["c02", "c06", "c07"]
HYDRELLE_AND_BRENALIS = ["c09", "c18"]
BRENALIS_CONTRACTS = ["c01", "c04", "c08", "c09", "c14", "c17", "c18"]
# c09's own end (2026-06-30) is moved to 2028-06-30 by its amendment c18.
ENDING_FROM_2028 = ["c01", "c02", "c06", "c07", "c09", "c13", "c14", "c18"]
NO_END_DATE = ["c08", "c17"]


@dataclass
class Check:
    name: str
    expected: Any
    got: Any
    passed: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "passed": self.passed,
            "expected": self.expected,
            "got": self.got,
        }


class _Room:
    """search_data_room and friends on the eval workspace, in its tenant scope."""

    def __init__(self, indexed: IndexedCorpus) -> None:
        self.indexed = indexed
        with scope(indexed.workspace):
            self.described = describe_data_room(workspace=indexed.workspace)

    def search(self, **kwargs: Any) -> dict[str, Any]:
        with scope(self.indexed.workspace):
            return search_data_room(workspace=self.indexed.workspace, **kwargs)

    def duplicates(self) -> dict[str, Any]:
        with scope(self.indexed.workspace):
            return find_duplicates(workspace=self.indexed.workspace)

    def entities(self, fragment: str) -> list[dict[str, Any]]:
        return [e for e in self.described["entities"] if fragment in e["name"]]

    def entity_id(self, name: str) -> int:
        for entity in self.described["entities"]:
            if entity["name"] == name or name in entity["aliases"]:
                return int(entity["entity_id"])
        raise LookupError(f"no entity {name!r} in describe_data_room")


def _ids(result: dict[str, Any]) -> list[str]:
    return [record["contract_id"] for record in result["results"]]


def _unknown(result: dict[str, Any]) -> list[str]:
    return sorted(item["contract_id"] for item in result["excluded_unknown"])


def _first(result: dict[str, Any]) -> dict[str, Any]:
    """First contract and its first relevant article's heading."""
    if not result["results"]:
        return {"contract_id": None, "heading": None}
    first = result["results"][0]
    articles = first.get("relevant_articles") or [{}]
    return {"contract_id": first["contract_id"], "heading": articles[0].get("heading")}


def _ranked_first(name: str, result: dict[str, Any], ref: str, heading: str | None) -> Check:
    got = _first(result)
    passed = got["contract_id"] == ref and (
        heading is None or str(got["heading"] or "").upper().startswith(heading)
    )
    expected = {"contract_id": ref, "heading_starts_with": heading}
    return Check(name, expected, got, passed)


def _set_check(name: str, result: dict[str, Any], expected: list[str], unknown: list[str]) -> Check:
    got = {"results": sorted(_ids(result)), "excluded_unknown": _unknown(result)}
    want = {"results": sorted(expected), "excluded_unknown": sorted(unknown)}
    return Check(name, want, got, got == want)


# --- The original tool's reference questions (demo.md) ------------------------------------


def _expiring_2026_with_brenalis(room: _Room) -> Check:
    result = room.search(
        filters={
            "entity_ids": [room.entity_id("Groupe Brenalis")],
            "end_date": {"before": "2026-12-31"},
        }
    )
    explanation = str(result["excluded_by_amendment"].get("c09", ""))
    got = {
        "results": _ids(result),
        "excluded_unknown": _unknown(result),
        "excluded_by_amendment": sorted(result["excluded_by_amendment"]),
        "c09_explanation_mentions_c18": "c18" in explanation,
    }
    expected = {
        "results": ["c04"],
        "excluded_unknown": NO_END_DATE,
        "excluded_by_amendment": ["c09"],
        "c09_explanation_mentions_c18": True,
    }
    return Check("reference: Brenalis contracts ending before 2027", expected, got, got == expected)


def _foreign_law(room: _Room) -> Check:
    result = room.search(filters={"governing_law": {"not_in": ["droit français"]}})
    return _set_check("reference: foreign governing law", result, ["c05", "c16", "c20"], ["c10"])


def _territorial_exclusivity(room: _Room) -> Check:
    result = room.search(query="exclusivité territoriale")
    return _ranked_first("reference: query 'exclusivité territoriale'", result, "c03", "ARTICLE 4")


def _franchise(room: _Room) -> Check:
    return _ranked_first(
        "reference: query 'franchise'", room.search(query="franchise"), "c13", None
    )


def _duplicates(room: _Room) -> Check:
    groups = [
        sorted(item["contract_id"] for item in group["contracts"])
        for group in room.duplicates()["groups"]
    ]
    expected = [["c05", "c20"], ["c11", "c19"]]
    return Check(
        "reference: duplicate groups",
        {"includes": expected},
        sorted(groups),
        all(group in groups for group in expected),
    )


# --- Our own checks: what a lawyer asks of this room -------------------------------------


def _signed_in_2025(room: _Room) -> Check:
    result = room.search(
        filters={"signature_date": {"after": "2025-01-01", "before": "2025-12-31"}}
    )
    return _set_check("signed in 2025 (mixed date formats)", result, SIGNED_IN_2025, [])


def _commercial_leases(room: _Room) -> Check:
    result = room.search(filters={"contract_types": ["commercial_lease"]})
    return _set_check(
        "contract type commercial_lease (bail commercial)", result, COMMERCIAL_LEASES, []
    )


def _swiss_law(room: _Room) -> Check:
    result = room.search(filters={"governing_law": {"in": ["droit suisse"]}})
    return _set_check("governing law 'droit suisse'", result, ["c16"], ["c10"])


def _both_parties(room: _Room) -> Check:
    entity_ids = [room.entity_id("Hydrelle Énergie SA"), room.entity_id("Groupe Brenalis")]
    result = room.search(filters={"entity_ids": entity_ids})
    return _set_check(
        "both Hydrelle Énergie and Groupe Brenalis", result, HYDRELLE_AND_BRENALIS, []
    )


def _ending_from_2028(room: _Room) -> Check:
    result = room.search(filters={"end_date": {"after": "2028-01-01"}})
    # The amendment brings c09 in; undated ends are listed apart, never dropped.
    return _set_check(
        "ending in 2028 or later (amendment applied)", result, ENDING_FROM_2028, NO_END_DATE
    )


def _article_in_one_contract(room: _Room) -> Check:
    result = room.search(query="article 4", filters={"document_ids": ["c03"]})
    check = _ranked_first("query 'article 4' in c03", result, "c03", "ARTICLE 4")
    check.passed = check.passed and _ids(result) == ["c03"]
    return check


def _change_of_control(room: _Room) -> Check:
    result = room.search(
        query="changement de contrôle",
        filters={"entity_ids": [room.entity_id("Groupe Brenalis")]},
    )
    check = _ranked_first(
        "query 'changement de contrôle' among Brenalis contracts", result, "c01", "ARTICLE 8"
    )
    check.passed = check.passed and set(_ids(result)) <= set(BRENALIS_CONTRACTS)
    return check


def _probation_period(room: _Room) -> Check:
    result = room.search(query="période d'essai")
    return _ranked_first("query 'période d'essai'", result, "c17", "ARTICLE 2")


def _paging(room: _Room) -> Check:
    seen: list[str] = []
    offsets: list[int | None] = []
    offset: int | None = 0
    while offset is not None and len(offsets) < 10:
        page = room.search(limit=5, offset=offset)
        seen += _ids(page)
        offset = page["next_offset"]
        offsets.append(offset)
    got = {"next_offsets": offsets, "contracts_seen": len(seen), "distinct": len(set(seen))}
    expected = {"next_offsets": [5, 10, 15, None], "contracts_seen": 20, "distinct": 20}
    return Check("paging: limit 5 over 20 contracts", expected, got, got == expected)


def _near_names_kept_apart(room: _Room) -> Check:
    brenalys = room.entities("Brénalys")
    brenalis = room.entities("Brenalis")
    got: dict[str, Any] = {
        "brenalys_entities": [e["name"] for e in brenalys],
        "brenalis_entities": [e["name"] for e in brenalis],
    }
    if len(brenalys) == 1 and len(brenalis) == 1:
        got["brenalys_contracts"] = sorted(
            _ids(room.search(filters={"entity_ids": [brenalys[0]["entity_id"]]}))
        )
        got["brenalis_contracts"] = sorted(
            _ids(room.search(filters={"entity_ids": [brenalis[0]["entity_id"]]}))
        )
    expected = {
        "brenalys_entities": ["Brénalys Advisory"],
        "brenalis_entities": ["Groupe Brenalis"],
        "brenalys_contracts": ["c12"],
        "brenalis_contracts": BRENALIS_CONTRACTS,
    }
    return Check(
        "Brénalys Advisory kept apart from Groupe Brenalis", expected, got, got == expected
    )


# --- Conditions written in the query, read as filters --------------------------------------


def _read(result: dict[str, Any]) -> list[str]:
    return [item["field"] for item in result["interpreted_filters"]]


def _conditions_brenalis_ending(room: _Room) -> Check:
    result = room.search(query="contracts with Brenalis ending before 2027")
    got = {
        "read": _read(result),
        "query": result["query"],
        "results": _ids(result),
        "excluded_unknown": _unknown(result),
        "excluded_by_amendment": sorted(result["excluded_by_amendment"]),
    }
    expected = {
        "read": ["entity_ids", "end_date"],
        "query": None,
        "results": ["c04"],
        "excluded_unknown": NO_END_DATE,
        "excluded_by_amendment": ["c09"],
    }
    name = "conditions: query 'contracts with Brenalis ending before 2027' as the reference"
    return Check(name, expected, got, got == expected)


def _conditions_leases_signed(room: _Room) -> Check:
    result = room.search(query="baux commerciaux signés avant 2024")
    got = {"read": _read(result), "query": result["query"], "results": sorted(_ids(result))}
    expected = {
        "read": ["contract_types", "signature_date"],
        "query": None,
        "results": COMMERCIAL_LEASES,
    }
    name = "conditions: query 'baux commerciaux signés avant 2024' lists the leases"
    return Check(name, expected, got, got == expected)


def _conditions_rank_the_rest(room: _Room) -> Check:
    result = room.search(query="résiliation des baux commerciaux")
    got = {
        "read": _read(result),
        "query": result["query"],
        "results": sorted(_ids(result)),
        "weak": result["weak_matches_left_out"],
    }
    # Of the three leases only c02 has a termination article (ARTICLE 8 — RÉSILIATION DE
    # PLEIN DROIT): the two others match weakly and are counted, not listed.
    expected = {"read": ["contract_types"], "query": "résiliation", "results": ["c02"], "weak": 2}
    name = "conditions: 'résiliation des baux commerciaux' ranks 'résiliation' among the leases"
    return Check(name, expected, got, got == expected)


def _conditions_negation_not_read(room: _Room) -> Check:
    typed = "not governed by New York law"
    result = room.search(query=typed)
    got = {"read": _read(result), "query": result["query"]}
    expected = {"read": [], "query": typed}
    return Check("conditions: a negation is not read", expected, got, got == expected)


CHECKS: list[Callable[[_Room], Check]] = [
    _expiring_2026_with_brenalis,
    _foreign_law,
    _territorial_exclusivity,
    _franchise,
    _duplicates,
    _signed_in_2025,
    _commercial_leases,
    _swiss_law,
    _both_parties,
    _ending_from_2028,
    _article_in_one_contract,
    _change_of_control,
    _probation_period,
    _paging,
    _near_names_kept_apart,
    _conditions_brenalis_ending,
    _conditions_leases_signed,
    _conditions_rank_the_rest,
    _conditions_negation_not_read,
]


def brenalis_checks(indexed: IndexedCorpus) -> list[Check]:
    """Run every check; one that raises is a failure with the error as what it got."""
    room = _Room(indexed)
    checks = []
    for run in CHECKS:
        try:
            checks.append(run(room))
        except Exception as exc:  # a broken check must not hide the others' results
            name = run.__name__.strip("_").replace("_", " ")
            checks.append(Check(name, "no error", f"{type(exc).__name__}: {exc}", False))
    return checks
