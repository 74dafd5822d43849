"""Shared fixtures: a firm with a workspace and its owner / editor / viewer / outsider,
plus a second firm, all on the real embedded Postgres with row-level security on; the
Brenalis demo room; the fake case-law sites and the scripted fake Ollama. What the tests
import lives in tests/helpers."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from io import StringIO
from typing import TYPE_CHECKING, Any

import pytest
from django.core.management import call_command
from django.test import Client, override_settings

from tests.factories import FirmFactory, MembershipFactory, UserFactory, WorkspaceFactory
from tests.helpers.data import TEST_EMBEDDING_MODEL, shared_data
from tests.helpers.rooms import BrenalisRoom, Room, login
from workspaces.models import Role, User, Workspace

if TYPE_CHECKING:
    from tests.fake_ollama import FakeOllama
    from tests.helpers.agent import Reply

os.environ.setdefault("HF_HUB_OFFLINE", "1")
# The test databases keep the single-role layout (the app role creates and owns them, and
# TransactionTestCase truncates as it); the split is tested on a database of its own
# (tests/workspaces/test_least_privilege.py).
os.environ.setdefault("LEXROOM_DB_SINGLE_ROLE", "1")


@pytest.fixture(autouse=True, scope="session")
def _offline_test_settings(tmp_path_factory):
    """The packaged model (loaded offline through the production code), originals in tmp,
    and a fast password hasher."""
    with override_settings(
        LEXROOM_EMBEDDING_MODEL=TEST_EMBEDDING_MODEL,
        LEXROOM_EMBEDDING_DEVICE="cpu",
        MEDIA_ROOT=str(tmp_path_factory.getbasetemp() / "media"),
        # Test settings only: full-strength PBKDF2 costs 0.25 s a user and the fixtures make
        # hundreds; the production hashers are untouched (tests/test_settings.py).
        PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
    ):
        yield


@pytest.fixture
def room(db) -> Room:
    firm = FirmFactory(name="Cabinet Alpha")
    workspace = WorkspaceFactory(firm=firm, slug="deal-alpha", title="Deal Alpha")
    owner = UserFactory(firm=firm, email="owner@alpha.test")
    editor = UserFactory(firm=firm, email="editor@alpha.test")
    viewer = UserFactory(firm=firm, email="viewer@alpha.test")
    outsider = UserFactory(firm=firm, email="outsider@alpha.test")
    MembershipFactory(workspace=workspace, user=owner, role=Role.OWNER)
    MembershipFactory(workspace=workspace, user=editor, role=Role.EDITOR)
    MembershipFactory(workspace=workspace, user=viewer, role=Role.VIEWER)
    other_firm = FirmFactory(name="Cabinet Beta")
    foreigner = UserFactory(firm=other_firm, email="someone@beta.test")
    foreign_workspace = WorkspaceFactory(firm=other_firm, slug="deal-beta", title="Deal Beta")
    MembershipFactory(workspace=foreign_workspace, user=foreigner, role=Role.OWNER)
    return Room(firm, workspace, owner, editor, viewer, outsider, foreigner, foreign_workspace)


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


@pytest.fixture(scope="module")
def brenalis_room(django_db_setup, django_db_blocker, request) -> Iterator[BrenalisRoom]:
    from documents.services import workspace_purge_throwaway

    path = shared_data("dataroom-brenalis", "exemple_data_room.json")
    slug = "brenalis-" + request.module.__name__.rsplit(".", 1)[-1].replace("_", "-")[:40]
    email = f"owner@{slug}.test"
    with django_db_blocker.unblock():
        call_command("create_workspace", slug, "--owner", email, "--firm", slug, stdout=StringIO())
        call_command(
            "import_dataroom", str(path), "--workspace", slug, "--in-process", stdout=StringIO()
        )
        workspace = Workspace.objects.get(slug=slug)
        owner = User.objects.get(email=email)
        viewer = UserFactory(firm=owner.firm, email=f"viewer@{slug}.test")
        MembershipFactory(workspace=workspace, user=viewer, role=Role.VIEWER)
        outsider = UserFactory(firm=owner.firm, email=f"outsider@{slug}.test")
        yield BrenalisRoom(workspace, owner, viewer, outsider)
        workspace_purge_throwaway(workspace=workspace)


@pytest.fixture
def fake_caselaw():
    """Both case-law sites served locally (tests/sources/fake_caselaw.py), the clients
    pointed at them, no spacing (loopback) unless a test sets it, quick retries."""
    from tests.sources.fake_caselaw import FakeCaseLaw, serve

    fake = FakeCaseLaw()
    server, thread = serve(fake)
    with override_settings(
        LEXROOM_ARIANEWEB_URL=fake.url,
        LEXROOM_OPENDATA_URL=f"{fake.url}/recherche/api",
        LEXROOM_CASELAW_MIN_INTERVAL_MS=0,
        LEXROOM_CASELAW_BACKOFF_SECONDS=0.01,
    ):
        yield fake
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


@pytest.fixture
def ollama(settings) -> Iterator[Callable[..., FakeOllama]]:
    """Start a fake Ollama (a real HTTP server, tests/fake_ollama.py) that answers the official
    client as /api/chat does, with the scripted turns given (tests/helpers/agent.py); the
    settings point the agent at it."""
    from tests.fake_ollama import FakeOllama
    from tests.helpers.agent import Script

    started: list[FakeOllama] = []

    def start(*replies: Reply, **options: Any) -> FakeOllama:
        fake = FakeOllama(Script(list(replies)), **options).start()
        settings.OLLAMA_URL = fake.url
        settings.LEXROOM_LLM_MODEL = fake.models[0]
        settings.LEXROOM_LLM_FAST_MODEL = ""
        settings.LEXROOM_LLM_RETRIES = 0
        started.append(fake)
        return fake

    yield start
    for fake in started:
        fake.stop()
