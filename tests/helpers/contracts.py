"""Contracts several test modules use, and the one way the tests ingest them: stored in the
workspace's scope, then the steps a worker runs (parse, chunk, embed, analyse), in process."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from documents.models import IngestBatch
from documents.pipeline import run_in_process, store_named
from documents.services import StoreResult, batch_create, dataroom_store, document_store
from workspaces.models import User, Workspace
from workspaces.tenancy import workspace_scope

CONTRACT = """CONTRAT DE PRESTATION DE SERVICES

Entre la société Alpha Conseil SAS et la société Beta Industrie SARL.

ARTICLE 1 — OBJET
Alpha Conseil assiste Beta Industrie dans la revue de ses contrats fournisseurs.

ARTICLE 2 — DURÉE
Le contrat est conclu pour une durée de deux ans à compter de sa signature.

ARTICLE 3 — LOI APPLICABLE
Le présent contrat est soumis au droit français.
"""

AMENDMENT = """AVENANT N°1 AU CONTRAT DE PRESTATION DE SERVICES

Entre Alpha Conseil SAS et Beta Industrie SARL.

ARTICLE 1 — CONTRAT MODIFIÉ
Les parties modifient le contrat de prestation de services signé le 3 juin 2024.

ARTICLE 2 — DURÉE
Le terme du contrat est reporté au 31 décembre 2028.
"""

# Written for these tests: two contracts in the data-room format (filename, content, metadata).
TINY_DATAROOM = [
    {"filename": "bail_test.txt", "title": "Bail de test", "content": CONTRACT},
    {
        "filename": "avenant_test.txt",
        "title": "Avenant de test",
        "content": "AVENANT N° 1\n\nARTICLE 1 — OBJET\nLa durée du contrat est portée à trois ans.",
    },
]

# A data-room lease with its metadata: the permission matrix's room and the chat journey's.
LEASE = {
    "filename": "bail.txt",
    "title": "Bail commercial",
    "parties": ["SCI Alpha", "Boutique Beta SARL"],
    "contract_type": "bail commercial",
    "signature_date": "2022-01-10",
    "end_date": "2031-01-09",
    "governing_law": "droit français",
    "content": "BAIL COMMERCIAL\n\nARTICLE 1 — DURÉE\nNeuf ans.\n\nARTICLE 2 — LOYER\n"
    "Le loyer annuel est de 24 000 euros.",
}

# A French lease and an English NDA: the tools' and the search tests' room.
LEASE_AND_NDA = [
    {
        "filename": "bail.pdf",
        "title": "Bail commercial — SCI Alpha / Boutique Beta",
        "parties": ["SCI Alpha", "Boutique Beta SARL"],
        "contract_type": "bail commercial",
        "signature_date": "2022-01-10",
        "end_date": "2031-01-09",
        "governing_law": "droit français",
        "content": "BAIL COMMERCIAL\n\nARTICLE 1 — DURÉE\nNeuf ans.\n\n"
        "ARTICLE 2 — LOYER\nLe loyer annuel est de 24 000 euros.",
    },
    {
        "filename": "nda.pdf",
        "title": "NDA — Boutique Beta / Gamma Ltd",
        "parties": ["Boutique Beta SARL", "Gamma Ltd"],
        "contract_type": "accord de confidentialité",
        "signature_date": "2024-05-02",
        "end_date": None,
        "governing_law": "English law",
        "content": "NON-DISCLOSURE AGREEMENT\n\n1. Confidential Information\nEach party keeps "
        "the other's information secret.\n\n2. Governing Law\nThis agreement is governed by "
        "English law.",
    },
]


def zip_of(members: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def ingest_entries(workspace: Workspace, *entries: dict[str, Any], label: str = "t") -> IngestBatch:
    """Data-room entries stored in ``workspace`` (refs c01, c02… unless given), then processed."""
    with workspace_scope(workspace):
        results = dataroom_store(workspace=workspace, entries=list(entries), user=None)
        batch = batch_create(workspace=workspace, label=label, results=results, user=None)
    run_in_process(workspace=workspace, batch=batch)
    return batch


def ingest_lease_and_nda(workspace: Workspace) -> None:
    ingest_entries(workspace, *LEASE_AND_NDA)


def ingest_files(
    workspace: Workspace,
    files: Mapping[str, bytes | str],
    *,
    user: User | None = None,
    label: str = "t",
) -> IngestBatch:
    """Files by name (a ZIP expanded, a .json a data room), stored by ``user``, then processed."""
    with workspace_scope(workspace):
        results: list[StoreResult] = []
        for name, data in files.items():
            content = data.encode() if isinstance(data, str) else data
            results += store_named(workspace=workspace, name=name, data=content, user=user)
        batch = batch_create(workspace=workspace, label=label, results=results, user=None)
    run_in_process(workspace=workspace, batch=batch)
    return batch


def store_texts(workspace: Workspace, *files: tuple[str, str], user: User) -> IngestBatch:
    """Texts stored by ``user`` as one batch, not processed: the queued path's tests run it."""
    with workspace_scope(workspace):
        results = []
        for name, text in files:
            document, created = document_store(
                workspace=workspace, filename=name, data=text.encode(), user=user
            )
            results.append(StoreResult(name, document, created))
        return batch_create(workspace=workspace, label="t", results=results, user=user)


def ingest_command(*paths: Path, expect_exit: int | None = None) -> str:
    """``manage.py ingest`` into the room's workspace (deal-alpha), in process; its output."""
    out = StringIO()
    args = ["ingest", *map(str, paths), "--workspace", "deal-alpha", "--in-process"]
    if expect_exit is None:
        call_command(*args, stdout=out)
    else:
        with pytest.raises(SystemExit) as exited:
            call_command(*args, stdout=out)
        assert exited.value.code == expect_exit
    return out.getvalue()
