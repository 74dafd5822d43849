"""The demo data room that `make run` imports (written by us, shipped in demo/)."""

from __future__ import annotations

from datetime import date
from io import StringIO

import pytest
from django.core.management import call_command

from compliance.models import WorkspacePlaybook
from documents.models import Document, DuplicateGroup
from workspaces.models import Workspace
from workspaces.tenancy import tenant_scope

pytestmark = pytest.mark.django_db


def test_demo_setup_imports_the_demo_room_once():
    out = StringIO()
    call_command("demo_setup", stdout=out)
    call_command("demo_setup", stdout=out)
    assert out.getvalue().count("Importing") == 1
    assert "demo@lexroom.local" in out.getvalue()
    workspace = Workspace.objects.get(slug="demo")
    with tenant_scope(workspace_ids=[workspace.pk]):
        assert Document.objects.filter(status="embedded").count() == 5
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
