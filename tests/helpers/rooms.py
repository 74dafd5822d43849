"""The people and rooms of the root conftest's fixtures (``room``, ``brenalis_room``), and a
signed-in client for any of them."""

from __future__ import annotations

from dataclasses import dataclass

from django.test import Client

from workspaces.models import Firm, User, Workspace

PASSWORD = "correct horse battery"


@dataclass
class Room:
    firm: Firm
    workspace: Workspace
    owner: User
    editor: User
    viewer: User
    outsider: User  # same firm, not a member
    foreigner: User  # another firm
    foreign_workspace: Workspace


@dataclass
class BrenalisRoom:
    """The Brenalis demo data room, ingested once per test module, with its people."""

    workspace: Workspace
    owner: User
    viewer: User
    outsider: User  # same firm, not a member


def login(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client
