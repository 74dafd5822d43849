"""fetch_legal_codes: the legi-data package read from a copy (.tgz or folder), the code picked
through the catalogue, clear errors without npm or with a wrong file. The file is invented."""

from __future__ import annotations

import json
import tarfile
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import translation

from sources.models import ArticleVersion, LegalCode

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _english():
    """The messages asserted below, in English (French is the default language)."""
    with translation.override("en"):
        yield


CRPA = "LEGITEXT000031366350"
TITLE = "Code des relations entre le public et l'administration"
SLUG = "code-des-relations-entre-le-public-et-ladministration"


def _package(root: Path) -> Path:
    """An npm-pack-like tree: package/data/LEGITEXT….json, one invented article."""
    data = root / "package" / "data"
    data.mkdir(parents=True)
    article = {
        "type": "article",
        "data": {
            "id": "LEGIARTI000000000001",
            "cid": "LEGIARTI000000000001",
            "num": "L. 111-1",
            "etat": "VIGUEUR",
            "dateDebut": 946684800000,
            "dateFin": 32472144000000,
            "texteHtml": "<p>Texte inventé : voir l'article L. 111-2.</p>",
        },
    }
    code = {
        "type": "code",
        "data": {"title": TITLE, "cid": CRPA, "id": CRPA},
        "children": [{"type": "section", "data": {"title": "Titre Ier"}, "children": [article]}],
    }
    (data / f"{CRPA}.json").write_text(json.dumps(code), encoding="utf-8")
    (data / "LEGITEXT000000000002.json").write_text("{}", encoding="utf-8")  # never read
    return root


def _tgz(tmp_path: Path) -> Path:
    tree = _package(tmp_path / "tree")
    path = tmp_path / "socialgouv-legi-data-1.0.0.tgz"
    with tarfile.open(path, "w:gz") as tar:
        tar.add(tree / "package", arcname="package")
    return path


def test_imports_the_default_small_code_from_the_packed_tgz(tmp_path):
    call_command(
        "fetch_legal_codes", "--from", str(_tgz(tmp_path)), "--no-embed", stdout=StringIO()
    )
    code = LegalCode.objects.get(slug=SLUG)
    assert code.source_format == "legi-json" and code.legi_id == CRPA
    version = ArticleVersion.objects.get(code=code)
    assert version.number == "L111-1" and version.renvois.get().target_number == "L111-2"
    out = StringIO()
    call_command("fetch_legal_codes", "--if-missing", stdout=out)  # no npm needed: skipped
    assert "already imported" in out.getvalue()


def test_a_folder_and_a_code_by_title(tmp_path):
    tree = _package(tmp_path)
    name = "code des relations entre le public et l'administration"
    call_command(
        "fetch_legal_codes", "--from", str(tree), "--code", name, "--no-embed", stdout=StringIO()
    )
    assert LegalCode.objects.filter(slug=SLUG).exists()


def test_errors_are_clear(tmp_path, monkeypatch):
    tree = _package(tmp_path / "a")
    with pytest.raises(CommandError, match="not a code this package holds"):
        call_command("fetch_legal_codes", "--from", str(tree), "--code", "code des sorciers")
    with pytest.raises(CommandError, match="no such file"):
        call_command("fetch_legal_codes", "--from", str(tmp_path / "missing.tgz"))
    not_tar = tmp_path / "x.tgz"
    not_tar.write_text("not a tarball")
    with pytest.raises(CommandError, match="not a readable"):
        call_command("fetch_legal_codes", "--from", str(not_tar))
    monkeypatch.setenv("PATH", str(tmp_path))  # no npm on the PATH
    with pytest.raises(CommandError, match="npm is not installed"):
        call_command("fetch_legal_codes")
    assert not LegalCode.objects.exists()


def test_the_package_version_is_a_version_or_a_tag(monkeypatch, tmp_path):
    with pytest.raises(CommandError, match="a version"):
        call_command("fetch_legal_codes", "--package-version", "git+https://example.org/x.git")
