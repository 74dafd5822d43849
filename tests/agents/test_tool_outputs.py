"""Every tool's output, on the Brenalis data room, matches the outputSchema it publishes.

The cases are keyed by tool name and the registry is iterated: a tool added without a case
here fails ``test_every_registered_tool_has_output_cases``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from io import StringIO
from typing import Any

import jsonschema
import pytest
from django.core.management import call_command

from agents.tools import REGISTRY, call_tool, tool_definitions
from agents.tools.registry import AnyObject
from compliance.playbooks import default_playbooks
from documents.services import workspace_purge_throwaway
from tests.helpers.data import shared_data
from tests.sources.factories import import_demo
from workspaces.models import User, Workspace

pytestmark = pytest.mark.django_db


@dataclass
class Brenalis:
    workspace: Workspace
    owner: User
    # Filled as the cases run: later calls use ids earlier ones returned.
    seen: dict[str, Any] = field(default_factory=dict)


@pytest.fixture(scope="module")
def brenalis(django_db_setup, django_db_blocker) -> Iterator[Brenalis]:
    path = shared_data("dataroom-brenalis", "exemple_data_room.json")
    with django_db_blocker.unblock():
        call_command(
            "create_workspace",
            "brenalis-outputs",
            "--owner",
            "outputs@brenalis.test",
            "--firm",
            "Cabinet Brenalis Outputs",
            stdout=StringIO(),
        )
        call_command(
            "import_dataroom",
            str(path),
            "--workspace",
            "brenalis-outputs",
            "--in-process",
            stdout=StringIO(),
        )
        workspace = Workspace.objects.get(slug="brenalis-outputs")
        yield Brenalis(workspace, User.objects.get(email="outputs@brenalis.test"))
        workspace_purge_throwaway(workspace=workspace)


Arguments = Callable[[Brenalis], dict[str, Any]]


def _entity(room: Brenalis) -> int:
    return int(room.seen["describe_data_room"]["entities"][0]["entity_id"])


def _with_playbook(room: Brenalis, arguments: dict[str, Any]) -> dict[str, Any]:
    """The French due-diligence playbook loaded into the room's firm and assigned to it."""
    call_command(
        "load_playbooks",
        str(default_playbooks()[1]),
        "--firm",
        room.workspace.firm.name,
        "--assign",
        room.workspace.slug,
        stdout=StringIO(),
    )
    return arguments


def _with_code(arguments: dict[str, Any]) -> dict[str, Any]:
    """An invented code imported (idempotent), for the codes' tools."""
    import_demo()
    return arguments


def _chunks(room: Brenalis) -> list[int]:
    return [article["chunk_id"] for article in room.seen["get_contract"]["articles"][:2]]


# In order: describe_data_room and get_contract run before the cases that use their ids.
CASES: dict[str, list[Arguments]] = {
    "list_workspaces": [lambda room: {}],
    "describe_data_room": [lambda room: {}],
    "search_data_room": [
        lambda room: {},
        lambda room: {"filters": {"end_date": {"after": "2025-01-01", "before": "2027-12-31"}}},
        lambda room: {
            "filters": {
                "governing_law": {"in": ["droit français"]},
                "signature_date": {"after": "2020-01-01"},
            },
            "limit": 3,
            "offset": 1,
        },
        lambda room: {"filters": {"entity_ids": [_entity(room)]}},
        lambda room: {"query": "clause de changement de contrôle", "limit": 5},
        lambda room: {
            "query": "résiliation anticipée",
            "filters": {"document_ids": ["c01", "c02", "c05"]},
        },
    ],
    "get_contract": [
        lambda room: {"contract_id": "c01"},
        lambda room: {"contract_id": "c01", "cursor": room.seen["get_contract"]["next_cursor"]},
        lambda room: {"contract_id": "c01", "chunk_ids": _chunks(room)},
        lambda room: {"contract_id": "c18"},
    ],
    "find_duplicates": [
        lambda room: {},
        lambda room: {"entity_ids": [_entity(room)]},
    ],
    "rate_result": [
        lambda room: {"query": "durée du bail", "chunk_id": _chunks(room)[0], "relevant": True},
        lambda room: {"query": "durée du bail", "chunk_id": _chunks(room)[0], "remove": True},
    ],
    # No Ollama listens (the test points OLLAMA_URL at a closed port): a failed turn, reported.
    "ask": [lambda room: {"question": "Quelle est la durée du bail ?"}],
    "scan_contract": [lambda room: _with_playbook(room, {"contract_id": "c01"})],
    "list_flags": [lambda room: {}, lambda room: {"severity": ["high"], "contract_id": "c01"}],
    "update_flag": [
        lambda room: {
            "flag_id": room.seen["list_flags"]["flags"][0]["flag_id"],
            "status": "escalated",
            "note": "Voir l'associé",
        },
    ],
    "search_legal_codes": [
        lambda room: _with_code({"query": "délai de préavis", "as_of": "2017-01-01"}),
        lambda room: {"query": "quittance", "codes": ["Code des essais"], "limit": 1},
    ],
    "get_article": [
        lambda room: _with_code({"code": "code-des-essais", "number": "L. 101-2"}),
        lambda room: {"code": "code-des-essais", "number": "L101-3", "include_repealed": True},
    ],
    "follow_renvois": [
        lambda room: _with_code({"code": "code-des-essais", "number": "L101-2", "depth": 2}),
    ],
    # Case law: the local fake sites (tests/sources/fake_caselaw.py).
    "search_case_law": [
        lambda room: {"query": "éolienne", "limit": 5},
        lambda room: {"query": "séjour", "jurisdiction": "TA", "date_from": "2024-01-01"},
    ],
    "get_decision": [
        lambda room: {"id": "/Ariane_Web/AW_DCE/|480003"},
        lambda room: {"id": "TA75:2400100:DTA_2400100_20241130"},
    ],
    "get_conclusions": [lambda room: {"id": "/Ariane_Web/AW_DCE/|480003"}],
    "get_analysis": [lambda room: {"id": "/Ariane_Web/AW_DCE/|480003"}],
    "save_decision": [
        lambda room: {"id": "/Ariane_Web/AW_DCE/|480003", "include_conclusions": False}
    ],
}


def test_every_registered_tool_has_output_cases():
    tool_definitions()  # loads the registry
    assert set(REGISTRY) == set(CASES)
    for tool in REGISTRY.values():
        assert tool.output_model is not AnyObject, f"{tool.name} declares no output model"


def test_every_tool_output_validates_against_its_published_schema(
    brenalis: Brenalis, settings, fake_caselaw
):
    settings.LEXROOM_ARTICLES_PER_PAGE = 3  # so that c01 has a next page to read
    settings.OLLAMA_URL, settings.LEXROOM_LLM_RETRIES = "http://127.0.0.1:9", 0
    schemas = {d["name"]: d["outputSchema"] for d in tool_definitions()}
    order = ["list_workspaces", "describe_data_room", "get_contract", "search_data_room"]
    for name in [*order, *(n for n in CASES if n not in order)]:
        for index, arguments in enumerate(CASES[name]):
            body = call_tool(name=name, arguments=arguments(brenalis), user=brenalis.owner).content
            jsonschema.validate(body, schemas[name])
            REGISTRY[name].output_model.model_validate(body)
            if index == 0:
                brenalis.seen[name] = body
    assert brenalis.seen["get_contract"]["next_cursor"] is not None
    assert brenalis.seen["find_duplicates"]["total_groups"] > 0


def test_output_schemas_are_flat_objects_that_state_every_key():
    for definition in tool_definitions():
        schema = definition["outputSchema"]
        assert schema["type"] == "object"
        assert set(schema["required"]) == set(schema["properties"]), definition["name"]
        jsonschema.Draft202012Validator.check_schema(schema)


def test_rest_openapi_shows_each_tools_output_schema(owner_client):
    schema = owner_client.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/tools/{name}"]["post"]
    options = operation["responses"]["200"]["content"]["application/json"]["schema"]["oneOf"]
    by_title = {option["title"]: option for option in options}
    assert set(by_title) == set(CASES)
    search = by_title["search_data_room"]["properties"]
    assert {"results", "excluded_unknown", "next_offset"} <= set(search)
    assert search["next_offset"] == {**search["next_offset"], "nullable": True}
