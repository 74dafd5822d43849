"""Playbook curation in the admin: import (problems by line, nothing stored), new versions,
export back to a file; only the firm's own playbooks, only for firm admins."""

from __future__ import annotations

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile

from compliance.models import Playbook
from compliance.playbooks import default_playbooks
from tests.factories import FirmFactory, UserFactory
from tests.helpers.rooms import Room, login

pytestmark = pytest.mark.django_db
IMPORT = "/admin/compliance/playbook/import/"


@pytest.fixture
def admin_client(room: Room):
    return login(UserFactory(firm=room.firm, email="it@alpha.test", is_firm_admin=True))


def _upload(client, text: str, name: str = "playbook.yaml"):
    return client.post(IMPORT, {"file": SimpleUploadedFile(name, text.encode())}, follow=True)


def test_a_bad_file_shows_each_problem_with_its_line_and_stores_nothing(admin_client, room):
    text = default_playbooks()[1].read_text().replace("kind: prohibited", "kind: forbidden", 1)
    page = _upload(admin_client, text).content.decode()
    line = 1 + text.splitlines().index("  - key: changement-de-controle")
    assert f"ligne {line}: changement-de-controle: kind" in page
    assert not Playbook.objects.filter(firm=room.firm).exists()


def test_import_then_reimport_then_a_change_makes_a_second_version(admin_client, room):
    text = default_playbooks()[1].read_text()
    assert _upload(admin_client, text).status_code == 200
    _upload(admin_client, text)  # unchanged: no new version
    _upload(admin_client, text.replace("severity: low", "severity: medium", 1))
    versions = list(Playbook.objects.filter(firm=room.firm).order_by("version")
                    .values_list("version", "current"))  # fmt: skip
    assert versions == [(1, False), (2, True)]
    current = Playbook.objects.get(firm=room.firm, current=True)
    exported = admin_client.get(f"/admin/compliance/playbook/{current.pk}/export/")
    assert exported["Content-Disposition"].endswith('v2.yaml"')
    data = yaml.safe_load(exported.content)
    assert data["key"] == "fr-due-diligence" and len(data["rules"]) == 10
    as_json = admin_client.get(f"/admin/compliance/playbook/{current.pk}/export/?format=json")
    assert as_json.json()["key"] == "fr-due-diligence"


def test_another_firms_playbook_is_not_there(admin_client, room):
    other = FirmFactory(name="Autre cabinet")
    foreign = Playbook.objects.create(firm=other, key="x", version=1, title="Playbook étranger")
    assert admin_client.get(f"/admin/compliance/playbook/{foreign.pk}/export/").status_code == 404
    assert (
        "Playbook étranger" not in admin_client.get("/admin/compliance/playbook/").content.decode()
    )


def test_members_who_are_not_firm_admins_are_sent_to_the_admin_login(room):
    response = login(room.owner).get(IMPORT)
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
