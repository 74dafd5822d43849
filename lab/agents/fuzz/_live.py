"""The live world of the OpenAPI fuzz: the permission matrix's credential kinds on a
throwaway room (two firms, their users, the owner's tokens, signed-in sessions with their CSRF
token, one processed contract) and uvicorn serving ``config.asgi`` in a thread on a free
loopback port. Everything it made is removed afterwards, queued tasks included."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import requests
import uvicorn
from django.conf import settings
from django.db import transaction
from django.test import Client
from django.utils import timezone
from django_q.models import OrmQ

from documents.models import IngestBatch
from documents.pipeline import run_in_process, store_named
from documents.services import batch_create, workspace_purge_throwaway
from lab.agents.fuzz._openapi import Credential
from workspaces.models import PersonalToken, User, Workspace
from workspaces.services import (
    firm_get_or_create,
    membership_set,
    user_get_or_create,
    workspace_create,
)
from workspaces.tasks import RUNNER
from workspaces.tenancy import workspace_scope
from workspaces.tokens import token_create, token_revoke

CONTRACT = (
    "CONTRAT DE BAIL COMMERCIAL\nEntre SCI Alpha et Beta SARL.\nARTICLE 1 - DURÉE\nNeuf ans à "
    "compter du 1er janvier 2024.\nARTICLE 2 - LOYER\nDouze mille euros par an.\n"
)

# The matrix's signed-in kinds (tests/test_permission_matrix.py SESSIONS).
SESSIONS = ("owner", "editor", "viewer", "outsider", "firm_admin", "foreigner")


@dataclass
class LiveWorld:
    base_url: str
    credentials: list[Credential]
    pins: dict[str, str]  # the room's slug, its contract's ref and its batch's id


def seed_contract(*, workspace: Workspace, user: User) -> tuple[IngestBatch, str]:
    """One processed contract in ``workspace``: the batch, and the contract's ref."""
    with workspace_scope(workspace):
        results = store_named(workspace=workspace, name="bail.txt", data=CONTRACT.encode(),
                              user=user)  # fmt: skip
        batch = batch_create(workspace=workspace, label="fuzz", results=results, user=None)
    run_in_process(workspace=workspace, batch=batch)
    document = results[0].document
    if document is None:
        raise RuntimeError(f"the fuzz contract was refused: {results[0].error}")
    return batch, document.ref


@contextmanager
def live_world(suffix: str) -> Iterator[LiveWorld]:
    """The world, its names ending in ``suffix``; removed when the block ends."""
    users, rooms = _people(suffix)
    clients = {kind: Client() for kind in SESSIONS}
    try:
        batch, ref = seed_contract(workspace=rooms[0], user=users["owner"])
        tokens = _tokens(users["owner"], other=rooms[1])
        with _served() as base_url:
            # The CSRF cookie a browser gets with the login page, sent back with each write.
            csrf_name, session_name = settings.CSRF_COOKIE_NAME, settings.SESSION_COOKIE_NAME
            token = str(requests.get(f"{base_url}/login/", timeout=30).cookies.get(csrf_name))
            credentials = [Credential("anonymous")]
            for kind, client in clients.items():
                client.force_login(users[kind])
                cookies = {session_name: str(client.cookies[session_name].value), csrf_name: token}
                credentials.append(Credential(kind, {"X-CSRFToken": token}, cookies))
            credentials += [Credential(k, {"Authorization": f"Bearer {raw}"}) for k, raw in tokens]
            pins = {"slug": rooms[0].slug, "ref": ref, "batch_id": str(batch.pk)}
            yield LiveWorld(base_url, credentials, pins)
    finally:
        for client in clients.values():
            client.logout()
        _drop_queued({room.pk for room in rooms})
        for workspace in rooms:  # each firm goes with its last workspace, its users with it
            workspace_purge_throwaway(workspace=workspace)


@transaction.atomic  # all or nothing: made before the block that removes them
def _people(suffix: str) -> tuple[dict[str, User], list[Workspace]]:
    """Owner, editor, viewer, an outsider and a firm admin in one firm, a foreigner in
    another; the room, a second room of the owner's and the foreigner's own."""
    actor = "system:fuzz"
    firm, _ = firm_get_or_create(name=f"Lexroom Fuzz OpenAPI {suffix}")
    other_firm, _ = firm_get_or_create(name=f"Lexroom Fuzz OpenAPI {suffix} (other firm)")
    users = {
        kind: user_get_or_create(email=f"{kind}-{suffix}@fuzz.lexroom.local",
                                 firm=other_firm if kind == "foreigner" else firm,
                                 actor_label=actor)[0]
        for kind in SESSIONS
    }  # fmt: skip
    # No service makes a firm admin (the admin's user page does): set as the matrix test does.
    User.objects.filter(pk=users["firm_admin"].pk).update(is_firm_admin=True)
    users["firm_admin"].refresh_from_db()
    room, _ = workspace_create(firm=firm, slug=f"fuzz-openapi-{suffix}", title="Fuzz OpenAPI",
                               owner=users["owner"], actor_label=actor)  # fmt: skip
    for kind in ("editor", "viewer"):
        membership_set(workspace=room, user=users[kind], role=kind, actor_label=actor)
    two, _ = workspace_create(firm=firm, slug=f"fuzz-openapi-{suffix}-two", title="Two",
                              owner=users["owner"], actor_label=actor)  # fmt: skip
    foreign, _ = workspace_create(firm=other_firm, slug=f"fuzz-openapi-{suffix}-other",
                                  title="Other", owner=users["foreigner"],
                                  actor_label=actor)  # fmt: skip
    return users, [room, two, foreign]


def _tokens(owner: User, *, other: Workspace) -> list[tuple[str, str]]:
    """The owner's tokens of the matrix: read-write, read-only, restricted to another room,
    expired and revoked."""
    tokens = {
        "token_rw": token_create(user=owner, name="fuzz rw"),
        "token_ro": token_create(user=owner, name="fuzz ro", read_only=True),
        "token_other_ws": token_create(user=owner, name="fuzz two", workspaces=[other]),
        "token_expired": token_create(user=owner, name="fuzz old", expires_days=1),
        "token_revoked": token_create(user=owner, name="fuzz gone"),
    }
    # Expired a minute ago: no service back-dates a token (as in the matrix test).
    PersonalToken.objects.filter(pk=tokens["token_expired"][0].pk).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    token_revoke(token=tokens["token_revoked"][0], actor_label="system:fuzz")
    return [(kind, raw) for kind, (_token, raw) in tokens.items()]


@contextmanager
def _served() -> Iterator[str]:
    """uvicorn serving config.asgi in a thread (the fuzz's settings apply to it), port 0."""
    from config.asgi import application

    config = uvicorn.Config(application, host="127.0.0.1", port=0, lifespan="on",
                            log_level="warning", timeout_keep_alive=120)  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    # A warning line per refused request (thousands) would drown the report; 5xx still log.
    request_log = logging.getLogger("django.request")
    level = request_log.level
    request_log.setLevel(logging.ERROR)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        request_log.setLevel(level)
        server.should_exit = True
        thread.join(timeout=30)


def _drop_queued(workspace_ids: set[int]) -> None:
    """Tasks the fuzz's uploads queued for its rooms (no worker runs them here)."""
    for row in OrmQ.objects.all():
        task = row.task  # {"id": "*BadSignature"} for a task signed with another key
        args: tuple[Any, ...] = tuple(task.get("args") or ())
        kwargs: dict[str, Any] = task.get("kwargs") or {}
        # enqueue() queues RUNNER(path, workspace_id, kwargs); a task queued otherwise, keywords.
        tenant = args[1] if task.get("func") == RUNNER and len(args) > 1 else None
        if {tenant, kwargs.get("workspace_id")} & workspace_ids:
            row.delete()
