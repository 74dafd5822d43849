"""The search tool as the workspace's viewer calls it, and the contracts a result lists."""

from __future__ import annotations

from typing import Any

from agents.tools import call_tool
from tests.helpers.rooms import Room


def search(room: Room, **arguments: Any) -> dict[str, Any]:
    """search_data_room in the room's workspace, called by its viewer."""
    return call_tool(
        name="search_data_room",
        arguments={"workspace": room.workspace.slug, **arguments},
        user=room.viewer,
    ).content


def contract_ids(body: dict[str, Any]) -> list[str]:
    """The contracts a search_data_room result lists, in its order."""
    return [hit["contract_id"] for hit in body["results"]]
