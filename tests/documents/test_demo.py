"""The demo data room that `make run` imports (written by us, shipped in demo/): read and
analysed at once, embedded by the worker afterwards."""

from __future__ import annotations

from datetime import date
from io import StringIO

import pytest
from django.core.management import call_command
from django_q.conf import Conf

from agents.tools import call_tool
from compliance.models import WorkspacePlaybook
from documents.models import Document, DuplicateGroup
from workspaces.models import User, Workspace
from workspaces.tenancy import tenant_scope

pytestmark = pytest.mark.django_db


def test_demo_setup_imports_the_demo_room_once_usable_before_the_worker_embeds_it(
    monkeypatch, django_capture_on_commit_callbacks
):
    out = StringIO()
    with django_capture_on_commit_callbacks() as queued:
        call_command("demo_setup", stdout=out)
        call_command("demo_setup", stdout=out)
    assert out.getvalue().count("Importing") == 1
    assert "demo@lexroom.local" in out.getvalue()
    workspace = Workspace.objects.get(slug="demo")
    with tenant_scope(workspace_ids=[workspace.pk]):
        # Read, chunked and analysed here; the vectors are the worker's.
        assert set(Document.objects.values_list("status", flat=True)) == {"chunked"}
        it_contract = Document.objects.get(ref="c02")
        assert it_contract.effective_end_date == date(2027, 3, 3)
        assert Document.objects.get(ref="c01").end_date == date(2030, 1, 31)
        assert DuplicateGroup.objects.count() == 1
        # The firm's default playbooks are checked on the demo workspace from the first run.
        assigned = WorkspacePlaybook.objects.filter(workspace=workspace)
        assert sorted(assigned.values_list("playbook_key", flat=True)) == [
            "en-commercial",
            "fr-due-diligence",
        ]
    user = User.objects.get(email="demo@lexroom.local")
    found = call_tool(name="search_data_room", arguments={"query": "loyer"}, user=user).content
    assert "c01" in [hit["contract_id"] for hit in found["results"]]  # full text, at once
    assert len(queued) == 1  # the embedding rounds, queued for the worker
    monkeypatch.setattr(Conf, "SYNC", True)
    with django_capture_on_commit_callbacks(execute=True):
        queued[0]()
    with tenant_scope(workspace_ids=[workspace.pk]):
        assert Document.objects.filter(status="embedded").count() == 5
        assert DuplicateGroup.objects.count() == 1
