"""Malformed uploads through the one path every upload takes (``store_named``, then the
document's steps): truncated and corrupted PDFs and DOCX, wrong signatures, zip bombs,
members named outside their archive, nesting, huge lines, mixed encodings, empty files.
Each must be refused with a reason or stored and then processed or failed with a reason;
the documents counted before plus those created must be the documents after."""

from __future__ import annotations

import io
import json
import random
import time
import zipfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import docx

from documents.models import Document, DocumentStatus
from documents.pipeline import store_named
from documents.services import document_process
from workspaces.models import User, Workspace
from workspaces.tenancy import workspace_scope

PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]"
    b"/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R"
    b"/Resources<</Font<</F1 5 0 R>>>>>>endobj\n4 0 obj<</Length 60>>stream\nBT /F1 12 Tf 72 "
    b"720 Td (ARTICLE 1 - Le prix est fixe.) Tj ET\nendstream endobj\n5 0 obj<</Type/Font"
    b"/Subtype/Type1/BaseFont/Helvetica>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
)


def _docx() -> bytes:
    document = docx.Document()
    document.add_paragraph("ARTICLE 1 - OBJET")
    document.add_paragraph("Le prestataire fournit le service.")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _zip(members: dict[str, bytes], *, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _corrupt(data: bytes, rng: random.Random) -> bytes:
    mutable = bytearray(data)
    for _ in range(rng.randint(1, 20)):
        mutable[rng.randrange(len(mutable))] = rng.randrange(256)
    return bytes(mutable)


def _traversal(rng: random.Random) -> tuple[str, bytes]:
    name = rng.choice(["../../etc/passwd.txt", "/abs/x.txt", "a/../../b.txt", "C:\\win.txt"])
    return "evil.zip", _zip({name: b"ARTICLE 1\nTexte."})


def _mixed(rng: random.Random) -> tuple[str, bytes]:
    text = "ARTICLE 1 - Été\n".encode() + "café".encode("latin-1") + "naïve".encode("utf-16")
    return "mix.txt", text + rng.randbytes(20)


def _json_wrong(rng: random.Random) -> tuple[str, bytes]:
    wrong: list[Any] = [{}, [1], [{"filename": 1}], "x", None, [{"filename": "a", "content": 3}]]
    value = rng.choice(wrong)
    return "room.json", json.dumps(value).encode()


def _html(rng: random.Random) -> tuple[str, bytes]:
    marker = rng.random()
    return "p.html", f"<script>alert({marker})</script><p>ARTICLE 1 texte {marker}</p>".encode()


Kind = tuple[str, Callable[[random.Random], tuple[str, bytes]]]


def _kinds(docx_bytes: bytes, bomb: bytes) -> list[Kind]:
    def cut(data: bytes, name: str) -> Callable[[random.Random], tuple[str, bytes]]:
        return lambda r: (name, data[: r.randrange(1, len(data))])

    def corrupt(data: bytes, name: str) -> Callable[[random.Random], tuple[str, bytes]]:
        return lambda r: (name, _corrupt(data, r))

    names = ["e.txt", "e.pdf", "e.docx", "e.zip", "e.json", "e.html"]
    return [
        ("pdf_truncated", cut(PDF, "t.pdf")),
        ("pdf_corrupted", corrupt(PDF, "c.pdf")),
        ("docx_truncated", cut(docx_bytes, "t.docx")),
        ("docx_corrupted", corrupt(docx_bytes, "c.docx")),
        ("wrong_magic", lambda r: (r.choice(["x.pdf", "x.docx"]), r.randbytes(r.randint(1, 400)))),
        ("zip_bomb", lambda r: ("bomb.zip", bomb)),
        ("zip_traversal", _traversal),
        ("zip_nested", lambda r: ("nest.zip", _nested(r.randint(2, 12)))),
        ("json_deep", lambda r: ("room.json", ("[" * r.randint(500, 5000)).encode())),
        ("json_wrong", _json_wrong),
        ("huge_line", lambda r: ("huge.txt", b"ARTICLE 1 " + b"x" * r.randint(10**6, 6 * 10**6))),
        ("mixed_encodings", _mixed),
        ("empty", lambda r: (r.choice(names), b"")),
        ("nul_bytes", lambda r: ("n.txt", b"\x00" * r.randint(1, 5000))),
        (
            "unknown_type",
            lambda r: (r.choice(["x.exe", "x", "x.pdf.exe"]), b"MZ" + r.randbytes(50)),
        ),
        ("html_script", _html),
    ]


def _nested(depth: int) -> bytes:
    data = b"ARTICLE 1\nLe texte le plus profond."
    name = "deep.txt"
    for level in range(depth):
        data, name = _zip({name: data}), f"level{level}.zip"
    return data


@dataclass
class UploadFuzzReport:
    uploads: int = 0
    seconds: float = 0.0
    outcomes: Counter[str] = field(default_factory=Counter)
    by_kind: Counter[str] = field(default_factory=Counter)
    crashes: list[dict[str, str]] = field(default_factory=list)
    documents_before: int = 0
    documents_created: int = 0
    documents_after: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "uploads": self.uploads,
            "seconds": round(self.seconds, 1),
            "outcomes": dict(sorted(self.outcomes.items())),
            "by_kind": dict(sorted(self.by_kind.items())),
            "crashes": self.crashes[:20],
            "crashes_total": len(self.crashes),
            "documents_before": self.documents_before,
            "documents_created": self.documents_created,
            "documents_after": self.documents_after,
            "nothing_lost": self.documents_before + self.documents_created == self.documents_after,
        }


def _one(
    workspace: Workspace, user: User, name: str, data: bytes, report: UploadFuzzReport
) -> None:
    with workspace_scope(workspace):
        results = store_named(workspace=workspace, name=name, data=data, user=user)
    for result in results:
        if result.document is None:
            report.outcomes["refused" if result.error else "refused_without_reason"] += 1
            continue
        if result.created:
            report.documents_created += 1
        with workspace_scope(workspace):
            document = document_process(
                workspace_id=workspace.pk, document_id=result.document.pk, resume=True
            )
        if document.status == DocumentStatus.FAILED:
            report.outcomes[
                "failed_with_reason" if document.status_reason else "failed_silently"
            ] += 1
        else:
            report.outcomes["processed"] += 1


def fuzz_uploads(
    *, workspace: Workspace, user: User, uploads: int, seed: int = 0
) -> UploadFuzzReport:
    report = UploadFuzzReport()
    with workspace_scope(workspace):
        report.documents_before = Document.objects.filter(workspace=workspace).count()
    bomb = _zip({"zeros.txt": bytes(200 << 20)})  # 200 MB of zeros in ~200 KB
    kinds = _kinds(_docx(), bomb)
    started = time.perf_counter()
    for index in range(uploads):
        kind, make = kinds[index % len(kinds)]
        name, data = make(random.Random(seed * 1_000_003 + index))  # noqa: S311 - test data
        report.uploads += 1
        report.by_kind[kind] += 1
        try:
            _one(workspace, user, name, data, report)
        except Exception as exc:  # what the fuzz looks for: recorded, and the loop goes on
            report.crashes.append(
                {"kind": kind, "name": name, "error": f"{type(exc).__name__}: {exc}"[:300]}
            )
    report.seconds = time.perf_counter() - started
    with workspace_scope(workspace):
        report.documents_after = Document.objects.filter(workspace=workspace).count()
    return report
