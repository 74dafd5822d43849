"""A decision saved into a workspace: a document of type ``decision`` that search, the
agent and citations treat like a contract, cut at its own parts (visas, each point of the
motifs, the dispositif, the conclusions) so a citation reads "point 4" as a lawyer would.

Stored like a data room's entry: the original is the decision's JSON (metadata, text and
sections), idempotent on its bytes. The sites are read first, outside any transaction; the
document is then stored in the workspace's scope and queued for processing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.utils import translation
from django.utils.translation import gettext

from documents.models import Document, IngestBatch
from documents.pipeline import queue_batch
from documents.services import IngestError, StoreResult, batch_create, document_store
from sources.caselaw._documents import conclusions_get, decision_get
from sources.caselaw._http import CaseLawError
from workspaces.models import Role, User, Workspace
from workspaces.selectors import RoleRequired, workspace_get_for_member
from workspaces.tenancy import workspace_scope


@dataclass(frozen=True)
class Saved:
    document: Document
    created: bool
    batch: IngestBatch
    warnings: list[str]


class _Writer:
    """The document's text, built part by part, with each part's start as a section."""

    def __init__(self) -> None:
        self.text = ""
        self.sections: list[dict[str, Any]] = []

    def line(self, value: str | None) -> None:
        if value:
            self.text += value.strip() + "\n"

    def section(self, heading: str, ref: str, body: str) -> None:
        if not body.strip():
            return
        self.text += "\n"
        self.sections.append({"start": len(self.text), "heading": heading, "ref": ref[:40]})
        self.text += f"{heading}\n{body.strip()}\n"


def title_of(decision: dict[str, Any]) -> str:
    parts = [
        decision.get("court") or decision.get("jurisdiction") or "",
        decision.get("formation") or "",
        decision.get("date") or "",
        f"n° {decision['number']}" if decision.get("number") else "",
    ]
    return ", ".join(part for part in parts if part)


def _compose(decision: dict[str, Any], conclusions: dict[str, Any] | None) -> _Writer:
    writer = _Writer()
    with translation.override("fr"):  # the decision is French: its parts are named so
        writer.line(title_of(decision))
        writer.line(decision.get("ecli"))
        writer.line(decision.get("permalink"))
        writer.line(decision.get("abstract"))
        writer.line(decision.get("header"))
        if decision.get("structure_recognised"):
            writer.section(gettext("Visas"), "visas", "\n".join(decision["visas"]))
            for point in decision["considerants"]:
                heading = gettext("Point %(n)s") % {"n": point["n"]}
                writer.section(heading, str(point["n"]), point["text"])
            body = "\n".join(article["text"] for article in decision["dispositif"])
            writer.section(gettext("Operative part"), "dispositif", body)
        else:
            writer.section(gettext("Full text"), "texte", decision["text"])
        if conclusions is not None:
            heading = gettext("Conclusions of the rapporteur public")
            if conclusions.get("rapporteur_public"):
                heading += f" ({conclusions['rapporteur_public']})"
            writer.section(heading, "conclusions", conclusions["text"])
    return writer


def _conclusions(
    decision: dict[str, Any], include: bool, warnings: list[str]
) -> dict[str, Any] | None:
    if not include or not decision.get("conclusions_id"):
        return None
    try:
        return dict(conclusions_get(decision["id"])["conclusions"])
    except CaseLawError as exc:
        warnings.append(gettext("Saved without the conclusions: %(why)s") % {"why": exc.message})
        return None


def _entry(decision: dict[str, Any], writer: _Writer) -> dict[str, Any]:
    parties = decision.get("parties") or {}
    keys = ("source", "id", "jurisdiction", "court", "number", "date", "formation",
            "classification", "ecli", "permalink", "conclusions_id", "analysis_id")  # fmt: skip
    return {
        "filename": f"{decision['jurisdiction']}-{decision.get('date') or 'undated'}-"
        f"{decision.get('number') or 'decision'}.json",
        "title": title_of(decision),
        "contract_type": "Décision de justice",
        "signature_date": decision.get("date") or "",
        "parties": [p for p in (parties.get("applicant"), parties.get("defendant")) if p],
        "governing_law": "France",
        "case_law": {key: decision.get(key) for key in keys},
        "sections": writer.sections,
        "content": writer.text,
    }


def decision_save(
    *,
    workspace: Workspace,
    user: User,
    decision_id: str,
    include_conclusions: bool = True,
) -> Saved:
    """Save the decision (and its conclusions, when ArianeWeb has them) into ``workspace``
    as a document, queued for processing. Raises :class:`CaseLawError` (nothing stored)."""
    fetched = decision_get(decision_id)
    decision, warnings = fetched["decision"], list(fetched["warnings"])
    conclusions = _conclusions(decision, include_conclusions, warnings)
    entry = _entry(decision, _compose(decision, conclusions))
    data = json.dumps(entry, ensure_ascii=False, sort_keys=True).encode()
    metadata = {key: value for key, value in entry.items() if key != "content"}
    with workspace_scope(workspace):
        # Checked again now: the sites may have taken minutes, and roles change.
        try:
            workspace_get_for_member(user=user, workspace_id=workspace.pk, min_role=Role.EDITOR)
        except RoleRequired:
            message = gettext("Saving a decision needs the editor role.")
            raise CaseLawError("forbidden", message) from None
        try:
            document, created = document_store(
                workspace=workspace,
                filename=entry["filename"],
                data=data,
                user=user,
                source="case_law",
                raw_metadata=metadata,
                media_type="txt",
            )
        except IngestError as exc:
            raise CaseLawError("invalid_arguments", exc.message) from None
        result = StoreResult(entry["filename"], document, created)
        batch = batch_create(
            workspace=workspace, label=title_of(decision), results=[result], user=user
        )
    queue_batch(workspace=workspace, batch=batch)
    return Saved(document, created, batch, warnings)
