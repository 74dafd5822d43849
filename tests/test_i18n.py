"""One language per request: French by default, English on request, everywhere a person reads.

The user's language, else their firm's, else LANGUAGE_CODE (French); anonymous pages follow
the browser among French and English; token calls and tasks speak their user's or firm's.
The catalogue (locale/fr) translates every string marked in code, and its compiled .mo says
exactly what its .po says.
"""

from __future__ import annotations

import ast
import gettext
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client, override_settings
from django_q.conf import Conf

from agents.mcp.server import Caller
from agents.mcp.server import _call as mcp_call
from agents.tools import ToolError
from documents.models import Document, DocumentStatus
from documents.pipeline import queue_batch
from documents.services import StoreResult, batch_create, document_store
from tests.helpers.rooms import Room, login
from workspaces.models import User
from workspaces.tenancy import tenant_scope
from workspaces.tokens import token_create

pytestmark = pytest.mark.django_db

CATALOGUE = Path(settings.BASE_DIR) / "locale" / "fr" / "LC_MESSAGES"
NBSP = "\u00a0"  # French sets a no-break space before ":" and ";"


def _page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def _speak(user: User, language: str) -> None:
    user.language = language
    user.save(update_fields=["language"])


def _firm_admin(room: Room) -> User:
    room.owner.is_firm_admin = True
    room.owner.save(update_fields=["is_firm_admin"])
    return room.owner


# --- Pages ---------------------------------------------------------------------------------


def test_a_french_firms_user_reads_french_pages_by_default(owner_client: Client, room: Room):
    assert room.firm.language == "" and room.owner.language == ""
    home = _page(owner_client, "/")
    assert '<html lang="fr">' in home
    assert "Vos espaces de travail" in home and "Se déconnecter" in home
    detail = _page(owner_client, "/w/deal-alpha/")
    assert f"Votre rôle{NBSP}:" in detail and "<strong>Propriétaire</strong>" in detail
    assert "Membres" in detail and "Lecteur" in detail  # the viewer's role, translated
    documents = _page(owner_client, "/w/deal-alpha/documents/")
    assert "Aucun document pour l'instant." in documents and "Déposer" in documents
    assert "Your workspaces" not in home + detail + documents
    assert "No documents yet." not in documents


def test_a_user_who_chose_english_reads_english_pages(room: Room):
    _speak(room.owner, "en")
    client = login(room.owner)
    response = client.get("/")
    assert response["Content-Language"] == "en"
    home = response.content.decode()
    assert '<html lang="en">' in home
    assert "Your workspaces" in home and "Log out" in home
    detail = _page(client, "/w/deal-alpha/")
    assert "Your role:" in detail and "<strong>Owner</strong>" in detail
    documents = _page(client, "/w/deal-alpha/documents/")
    assert "No documents yet." in documents and "Upload" in documents
    assert "Vos espaces de travail" not in home


def test_the_firms_language_applies_unless_the_user_chose_one(room: Room):
    room.firm.language = "en"
    room.firm.save(update_fields=["language"])
    assert "Your workspaces" in _page(login(room.viewer), "/")
    _speak(room.owner, "fr")
    assert "Vos espaces de travail" in _page(login(room.owner), "/")


def test_document_page_labels_and_statuses_follow_the_language(room: Room):
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        document, _ = document_store(
            workspace=room.workspace, filename="bail.txt", data=b"Bail commercial.", user=None
        )
        Document.objects.filter(pk=document.pk).update(
            status=DocumentStatus.FAILED, status_reason="-"
        )
    french = _page(login(room.owner), "/w/deal-alpha/documents/c01/")
    assert "Droit applicable" in french and "Échec -" in french
    assert "Aucun article (pour l'instant)." in french
    _speak(room.viewer, "en")
    english = _page(login(room.viewer), "/w/deal-alpha/documents/c01/")
    assert "Governing law" in english and "Failed -" in english
    assert "No articles (yet)." in english


def _refused_upload(user: User) -> tuple[list[str], str]:
    """The refusals the upload's page lists (written at upload time), and the page."""
    refused = {"files": [SimpleUploadedFile("outil.exe", b"MZ binary")]}
    response = login(user).post("/w/deal-alpha/documents/upload/", refused, follow=True)
    return [file.error for file in response.context["files"]], response.content.decode()


def test_upload_messages_are_in_the_users_language(room: Room):
    refused, page = _refused_upload(room.owner)
    assert refused == [
        f"outil.exe{NBSP}: type de fichier .exe non pris en charge{NBSP}; "
        f"types acceptés{NBSP}: .docx, .htm, .html, .json, .md, .pdf, .txt, .zip"
    ]
    assert f"Refusé{NBSP}:" in page
    _speak(room.editor, "en")
    refused, page = _refused_upload(room.editor)
    assert refused == [
        "outil.exe: unsupported file type .exe; supported: "
        ".docx, .htm, .html, .json, .md, .pdf, .txt, .zip"
    ]
    assert "Refused:" in page


# --- Admin ---------------------------------------------------------------------------------


def test_the_admin_index_is_french_for_a_french_firm_admin(room: Room):
    index = _page(login(_firm_admin(room)), "/admin/")
    assert "Administration de Lexroom" in index  # ours
    assert "Site d\u2019administration" in index  # Django's own catalogue
    assert "Cabinets et espaces de travail" in index and "Espaces de travail" in index
    assert "Jetons personnels" in index and "Journal d&#x27;audit" in index
    assert "Workspaces" not in index


def test_the_admin_index_is_english_for_an_english_speaking_admin(room: Room):
    admin = _firm_admin(room)
    _speak(admin, "en")
    index = _page(login(admin), "/admin/")
    assert "Lexroom administration" in index and "Site administration" in index
    assert "Firms and workspaces" in index and "Personal tokens" in index
    assert "Espaces de travail" not in index


def test_admin_list_columns_use_the_translated_field_names(room: Room):
    token_create(user=room.viewer, name="outlook")
    columns = _page(login(_firm_admin(room)), "/admin/workspaces/personaltoken/")
    assert "Lecture seule" in columns and "Date d&#x27;expiration" in columns


# --- Anonymous pages -----------------------------------------------------------------------


def test_anonymous_login_page_is_french_without_a_header_and_english_on_request(client: Client):
    french = client.get("/login/")
    assert french["Content-Language"] == "fr"
    assert "Se connecter" in french.content.decode() and "Sign in" not in french.content.decode()
    english = client.get("/login/", HTTP_ACCEPT_LANGUAGE="en-GB,en;q=0.9")
    assert english["Content-Language"] == "en"
    assert "Sign in" in english.content.decode()
    assert "Accept-Language" in english["Vary"]


def test_an_unsupported_browser_language_gets_french(client: Client):
    response = client.get("/login/", HTTP_ACCEPT_LANGUAGE="de-DE,de;q=0.9")
    assert "Se connecter" in response.content.decode()


# --- API -----------------------------------------------------------------------------------


def _read_only_write(user: User):
    _, raw = token_create(user=user, name="ro", read_only=True)
    return Client().post(
        "/api/workspaces/deal-alpha/documents/upload/",
        {"files": [SimpleUploadedFile("contrat.txt", b"Contrat.")]},
        HTTP_AUTHORIZATION=f"Bearer {raw}",
    )


def test_read_only_token_refusal_is_in_the_token_users_language(room: Room):
    french = _read_only_write(room.owner)
    assert french.status_code == 403
    assert french.json() == {"detail": "Ce jeton est en lecture seule."}
    _speak(room.editor, "en")
    english = _read_only_write(room.editor)
    assert english.status_code == 403
    assert english.json() == {"detail": "This token is read-only."}


def test_tool_errors_follow_the_callers_language(owner_client: Client, room: Room):
    url = "/api/tools/get_contract"
    french = owner_client.post(url, {"contract_id": "c99"}, content_type="application/json")
    assert french.status_code == 400
    body = french.json()
    assert body["error"] == "invalid_arguments"  # machine-readable: never translated
    assert body["message"].startswith("contract_id inconnu 'c99'")
    _speak(room.owner, "en")
    english = login(room.owner).post(url, {"contract_id": "c99"}, content_type="application/json")
    assert english.json()["message"].startswith("Unknown contract_id 'c99'")
    assert english.json()["error"] == "invalid_arguments"


def test_mcp_tool_errors_are_in_the_token_users_language(room: Room):
    for language, start in (("", "contract_id inconnu"), ("en", "Unknown contract_id")):
        _speak(room.owner, language)
        token, _ = token_create(user=room.owner, name=f"mcp-{language}")
        caller = Caller(user=room.owner, token=token, via="mcp")
        with pytest.raises(ToolError) as refused:
            mcp_call(caller, "get_contract", {"workspace": "deal-alpha", "contract_id": "c99"})
        assert refused.value.kind == "invalid_arguments"
        assert refused.value.message.startswith(start), refused.value.message


# --- Tasks ---------------------------------------------------------------------------------


def _fail_in_a_task(room: Room, django_capture_on_commit_callbacks) -> str:
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        document, created = document_store(
            workspace=room.workspace, filename="scan.txt", data=b"  \n\n  ", user=None
        )
        batch = batch_create(
            workspace=room.workspace,
            label="t",
            results=[StoreResult("scan.txt", document, created)],
            user=None,
        )
    with django_capture_on_commit_callbacks(execute=True):
        queue_batch(workspace=room.workspace, batch=batch)
    with tenant_scope(workspace_ids=[room.workspace.pk]):
        document.refresh_from_db()
    assert document.status == DocumentStatus.FAILED
    return document.status_reason


def test_a_failed_documents_reason_is_written_in_the_firms_language(
    room: Room, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(Conf, "SYNC", True)
    reason = _fail_in_a_task(room, django_capture_on_commit_callbacks)
    assert reason == f"scan.txt{NBSP}: le fichier ne contient aucun texte"


def test_an_english_firms_task_writes_english_reasons(
    room: Room, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(Conf, "SYNC", True)
    room.firm.language = "en"
    room.firm.save(update_fields=["language"])
    reason = _fail_in_a_task(room, django_capture_on_commit_callbacks)
    assert reason == "scan.txt: the file contains no text"


# --- The catalogue -------------------------------------------------------------------------


def _po_entries(path: Path) -> list[dict[str, object]]:
    """The entries of a .po file: msgctxt, msgid, msgid_plural, msgstr / msgstr[n], flags."""
    entries: list[dict[str, object]] = []
    entry: dict[str, object] = {}
    field = ""
    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        if not line.strip():
            if "msgid" in entry:
                entries.append(entry)
            entry, field = {}, ""
        elif line.startswith("#,"):
            entry["flags"] = {flag.strip() for flag in line[2:].split(",")}
        elif line.startswith("#~"):
            entry["obsolete"] = True
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            entry[field] = str(entry[field]) + ast.literal_eval(line)
        else:
            field, _, value = line.partition(" ")
            entry[field] = ast.literal_eval(value)
    return entries


def test_every_message_of_the_catalogue_is_translated():
    entries = _po_entries(CATALOGUE / "django.po")
    header, messages = entries[0], entries[1:]
    assert "Plural-Forms: nplurals=2; plural=(n > 1);" in str(header["msgstr"])
    assert len(messages) > 300
    for entry in messages:
        assert "fuzzy" not in entry.get("flags", set()), entry["msgid"]
        assert not entry.get("obsolete"), entry["msgid"]
        if "msgid_plural" in entry:
            assert entry["msgstr[0]"] and entry["msgstr[1]"], entry["msgid"]
        else:
            assert entry["msgstr"], entry["msgid"]


def test_the_compiled_catalogue_says_what_the_po_says():
    with (CATALOGUE / "django.mo").open("rb") as handle:
        compiled = gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]
    expected: dict[object, str] = {}
    for entry in _po_entries(CATALOGUE / "django.po"):
        msgid = str(entry["msgid"])
        if "msgctxt" in entry:
            msgid = f"{entry['msgctxt']}\x04{msgid}"
        if "msgid_plural" in entry:
            expected[(msgid, 0)] = str(entry["msgstr[0]"])
            expected[(msgid, 1)] = str(entry["msgstr[1]"])
        else:
            expected[msgid] = str(entry["msgstr"])
    # msgfmt leaves the template's date out of the compiled header.
    expected[""] = "".join(
        line for line in expected[""].splitlines(keepends=True) if "POT-Creation-Date" not in line
    )
    # Run `make messages` after editing the .po: Django reads only the .mo.
    assert compiled == expected


def _msgids(path: Path) -> set[tuple[str, str]]:
    return {(str(e.get("msgctxt", "")), str(e["msgid"])) for e in _po_entries(path)}


@pytest.mark.skipif(not shutil.which("xgettext"), reason="gettext tools are not installed")
def test_every_marked_string_is_in_the_catalogue(tmp_path: Path, monkeypatch):
    # makemessages writes next to the sources it scans: it scans links to them from a
    # scratch folder, so the real catalogue is never touched.
    base = Path(settings.BASE_DIR)
    for folder in base.iterdir():
        if folder.is_dir() and (folder / "__init__.py").exists() and folder.name != "tests":
            (tmp_path / folder.name).symlink_to(folder)
    (tmp_path / "templates").symlink_to(base / "templates")
    scratch = tmp_path / "locale" / "fr" / "LC_MESSAGES"
    scratch.mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    with override_settings(LOCALE_PATHS=[tmp_path / "locale"]):
        call_command("makemessages", locale=["fr"], symlinks=True, verbosity=0)
    missing = _msgids(scratch / "django.po") - _msgids(CATALOGUE / "django.po")
    # A string marked in code or a template but missing here would be shown in English.
    assert missing == set(), "run `make messages` and translate the new strings"
