"""The workspace analysis: one run at a time per workspace, and a second run changes nothing."""

from __future__ import annotations

import threading

import pytest
from django.db import connections, transaction

from documents import listeners, services
from documents.models import DocumentLink, DuplicateGroup, DuplicateMember
from documents.pipeline import run_in_process
from tests.helpers.contracts import AMENDMENT, CONTRACT, store_texts
from tests.helpers.rooms import Room
from workspaces.locks import LockNamespace, workspace_xact_try_lock
from workspaces.tenancy import tenant_scope

pytestmark = pytest.mark.django_db

NDA = """ACCORD DE CONFIDENTIALITÉ

Entre Gamma Conseil SA et Delta Logistique SARL.

ARTICLE 1 — OBJET
Les parties échangent des informations confidentielles sur un projet d'entrepôt.

ARTICLE 2 — DURÉE
L'accord est conclu pour trois ans.
"""


def _links_and_groups(room: Room) -> tuple[set[tuple[int, int, int, str]], set[tuple[int, str]]]:
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        links = set(DocumentLink.objects.values_list("pk", "source_id", "target_id", "explanation"))
        groups = {
            (member.group_id, f"{member.group.kind}:{member.document_id}")
            for member in DuplicateMember.objects.select_related("group")
        }
    return links, groups


def _lock_is_free_elsewhere(workspace_id: int) -> bool:
    """Try the analysis lock from another connection (another worker)."""
    free: list[bool] = []

    def attempt() -> None:
        try:
            with transaction.atomic():
                free.append(
                    workspace_xact_try_lock(
                        namespace=LockNamespace.WORKSPACE_ANALYSIS, workspace_id=workspace_id
                    )
                )
        finally:
            connections.close_all()

    thread = threading.Thread(target=attempt)
    thread.start()
    thread.join(timeout=60)
    return free[0]


def test_analysis_run_twice_keeps_the_same_links_and_groups(room: Room):
    batch = store_texts(
        room.workspace,
        ("contrat.txt", CONTRACT),
        ("avenant.txt", AMENDMENT),
        ("nda.txt", NDA),
        ("nda copie.txt", NDA + "\n"),
        user=room.owner,
    )
    run_in_process(workspace=room.workspace, batch=batch)
    first = _links_and_groups(room)
    assert len(first[0]) == 1 and len(first[1]) == 2  # one amendment link, one group of two
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        summary = services.workspace_analyze(workspace_id=room.workspace.pk)
        assert DuplicateGroup.objects.count() == 1
    assert (summary.amendment_links, summary.duplicate_groups) == (1, 1)
    assert _links_and_groups(room) == first  # same rows, same ids: nothing rewritten


def test_analysis_holds_the_workspace_lock_while_it_runs(room: Room, monkeypatch):
    held_elsewhere: list[bool] = []

    class Probe:
        def chunks_removing(self, *, workspace_id: int, document_id: int | None) -> None:
            pass

        def chunks_indexed(self, *, workspace_id: int, document_id: int) -> None:
            pass

        def workspace_analyzed(self, *, workspace_id: int) -> None:
            held_elsewhere.append(not _lock_is_free_elsewhere(workspace_id))

    monkeypatch.setattr(listeners, "_listeners", [*listeners.index_listeners(), Probe()])
    assert _lock_is_free_elsewhere(room.workspace.pk)
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        services.workspace_analyze(workspace_id=room.workspace.pk)
    assert held_elsewhere == [True]
