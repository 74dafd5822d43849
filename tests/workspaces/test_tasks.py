"""Background tasks run inside their workspace's tenant scope."""

from __future__ import annotations

import pytest
from django_q.conf import Conf

from tests.conftest import Room
from workspaces.models import Membership
from workspaces.tasks import enqueue
from workspaces.tenancy import current_workspace_ids, tenant_scope

pytestmark = pytest.mark.django_db

seen: list[tuple[tuple[int, ...], int]] = []


def record_scope(*, workspace_id: int) -> None:
    seen.append((current_workspace_ids(), Membership.objects.count()))


def test_enqueued_task_runs_after_commit_in_its_workspace_scope(
    room: Room, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(Conf, "SYNC", True)
    seen.clear()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        enqueue("tests.workspaces.test_tasks.record_scope", workspace_id=room.workspace.pk)
        assert seen == []  # nothing runs before commit
    assert len(callbacks) == 1
    assert seen == [((room.workspace.pk,), 3)]


def test_enqueue_rejects_an_unknown_function(room: Room):
    with pytest.raises(AttributeError):
        enqueue("tests.workspaces.test_tasks.no_such_function", workspace_id=room.workspace.pk)


def test_scope_is_empty_outside_a_task(room: Room):
    assert current_workspace_ids() == ()
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        assert current_workspace_ids() == (room.workspace.pk,)
