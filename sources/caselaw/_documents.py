"""One decision in full, its conclusions and its analysis, by Lexroom's id.

Ids are the sources' own: ArianeWeb's Sinequa id (``/Ariane_Web/AW_DCE/|488011``) and the
open data's ``{court}:{case number}:{identification}`` (``TA76:2600849:ORTA_2600849_…``).
A decision's metadata (court, formation, ECLI, linked conclusions) comes from the search
that listed it, kept in ``CaseLawHit``, or from a search by its case number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.utils.translation import gettext

from sources.caselaw import _ariane, _opendata
from sources.caselaw._http import CaseLawError, Fetched
from sources.caselaw._records import Fetches, remember
from sources.caselaw._text import html_text, parties_from_header, pdf_text, split_decision
from sources.models import CaseLawHit

ID_FORMATS = ["/Ariane_Web/AW_DCE/|488011", "TA76:2600849:ORTA_2600849_20260218"]


def id_source(decision_id: str) -> str:
    """ "arianeweb" or "opendata"; a malformed id is refused with both formats shown."""
    if _ariane.parse_id(decision_id):
        return "arianeweb"
    if _opendata.parse_id(decision_id):
        return "opendata"
    message = gettext(
        "%(id)r is not a case-law id. Use the id a search returned: ArianeWeb's "
        "(/Ariane_Web/AW_DCE/|488011) or the open data's (TA76:2600849:ORTA_2600849_20260218)."
    )
    raise CaseLawError(
        "invalid_arguments", message % {"id": decision_id[:200]}, field="id", formats=ID_FORMATS
    )


def _minimal(decision_id: str) -> dict[str, Any]:
    source, number = _ariane.parse_id(decision_id) or ("AW_DCE", "")
    jurisdiction = _ariane.DECISION_SOURCES.get(source, "CE")
    return {**_ariane.hit({"Id": decision_id, "SourceStr4": source, "SourceCsv1": number}),
            "jurisdiction": jurisdiction}  # fmt: skip


def _ariane_metadata(decision_id: str, fetches: Fetches) -> tuple[dict[str, Any], list[str]]:
    stored = CaseLawHit.objects.filter(decision_id=decision_id).first()
    if stored is not None:
        return dict(stored.metadata), []
    _source, number = _ariane.parse_id(decision_id) or ("", "")
    page = _ariane.ArianeWebClient().search(source="", case_number=number)
    fetches.items.append(page.fetched)
    records = [_ariane.hit(doc) for doc in page.documents]
    remember(records)
    found = next((r for r in records if r["id"] == decision_id), None)
    if found is not None:
        return found, []
    warning = gettext(
        "ArianeWeb lists no metadata for %(id)s: court, formation, ECLI and links are unknown."
    )
    return _minimal(decision_id), [warning % {"id": decision_id}]


def _ariane_decision(decision_id: str, fetches: Fetches) -> dict[str, Any]:
    source, _number = _ariane.parse_id(decision_id) or ("", "")
    if source not in _ariane.DECISION_SOURCES:
        message = gettext(
            "%(id)s is not a decision (conclusions or analysis): use get_conclusions or "
            "get_analysis with the decision's id."
        )
        raise CaseLawError("invalid_arguments", message % {"id": decision_id}, field="id")
    metadata, warnings = _ariane_metadata(decision_id, fetches)
    fetched = _ariane.ArianeWebClient().download(decision_id)
    fetches.items.append(fetched)
    text = html_text(fetched.body, site=_ariane.SITE)
    return _with_text(metadata, text, warnings)


def _opendata_decision(decision_id: str, fetches: Fetches) -> dict[str, Any]:
    text, record, fetched = _opendata.OpenDataClient().full_text(decision_id)
    fetches.items.append(fetched)
    stored = CaseLawHit.objects.filter(decision_id=decision_id).first()
    metadata = dict(stored.metadata) if stored is not None else None
    if metadata is None and record is not None and record["id"] == decision_id:
        metadata = record
        remember([record])
    warnings = []
    if metadata is None:
        court, number, _ident = _opendata.parse_id(decision_id) or ("", "", "")
        metadata = {**_opendata.hit({"Code_Juridiction": court, "Numero_Dossier": number}),
                    "id": decision_id}  # fmt: skip
        warnings.append(gettext("The open data gives no metadata for this decision."))
    return _with_text(metadata, text, warnings)


def _with_text(metadata: dict[str, Any], text: str, warnings: list[str]) -> dict[str, Any]:
    if not text.strip():
        message = gettext("%(id)s: the site returned no text for this decision.")
        raise CaseLawError("not_found", message % {"id": metadata["id"]})
    parts = split_decision(text)
    if not parts.recognised:
        warnings.append(
            gettext("Visas, motifs and dispositif were not recognised: the full text is given.")
        )
    return {
        **metadata,
        "parties": metadata.get("parties") or parties_from_header(parts.header),
        "text": text,
        **parts.as_dict(),
        "warnings": warnings,
    }


def decision_get(decision_id: str) -> dict[str, Any]:
    """The decision's metadata, full text and parts. Raises :class:`CaseLawError`."""
    fetches = Fetches()
    if id_source(decision_id) == "arianeweb":
        decision = _ariane_decision(decision_id, fetches)
    else:
        decision = _opendata_decision(decision_id, fetches)
    warnings = decision.pop("warnings")
    return {"decision": decision, "warnings": warnings, "cache": fetches.report()}


def _linked(decision_id: str, key: str, fetches: Fetches) -> tuple[str, dict[str, Any]]:
    """The id of the decision's conclusions or analysis (``key``), and the decision's
    metadata; a conclusions or analysis id is taken as it is."""
    if id_source(decision_id) == "opendata":
        message = gettext(
            "The open data publishes decisions only: no conclusions or analysis for %(id)s."
        )
        raise CaseLawError("not_found", message % {"id": decision_id})
    source, _number = _ariane.parse_id(decision_id) or ("", "")
    wanted = (
        {_ariane.CONCLUSIONS_SOURCE} if key == "conclusions_id" else set(_ariane.ANALYSIS_SOURCES)
    )
    if source in wanted:
        return decision_id, {}
    if source not in _ariane.DECISION_SOURCES:
        raise CaseLawError(
            "invalid_arguments", gettext("%(id)s is not a decision.") % {"id": decision_id}
        )
    metadata, _warnings = _ariane_metadata(decision_id, fetches)
    linked = metadata.get(key)
    if not linked:
        message = (
            gettext("ArianeWeb has no conclusions of the rapporteur public for %(id)s.")
            if key == "conclusions_id"
            else gettext("ArianeWeb has no analysis for %(id)s.")
        )
        raise CaseLawError("not_found", message % {"id": decision_id}, decision_id=decision_id)
    return str(linked), metadata


def _download(doc_id: str, fetches: Fetches) -> Fetched:
    fetched = _ariane.ArianeWebClient().download(doc_id)
    fetches.items.append(fetched)
    return fetched


def _linked_document(
    decision_id: str, link: str, read: Callable[..., str], **fields: Any
) -> tuple[dict[str, Any], Fetches]:
    """The document a decision links to (``link``: ``conclusions_id`` or ``analysis_id``),
    read as text by ``read``; ``fields``: decision metadata keys to add, by output name."""
    fetches = Fetches()
    doc_id, metadata = _linked(decision_id, link, fetches)
    text = read(_download(doc_id, fetches).body, site=_ariane.SITE)
    document = {
        "id": doc_id,
        "decision_id": decision_id if metadata else None,
        **{name: metadata.get(key) or None for name, key in fields.items()},
        "date": metadata.get("date"),
        "download_url": download_url(doc_id),
        "text": text,
    }
    return document, fetches


def conclusions_get(decision_id: str) -> dict[str, Any]:
    """The rapporteur public's conclusions (the PDF's text) for a decision."""
    document, fetches = _linked_document(
        decision_id, "conclusions_id", pdf_text, rapporteur_public="rapporteur_public"
    )
    return {"conclusions": document, "cache": fetches.report()}


def analysis_get(decision_id: str) -> dict[str, Any]:
    """The Conseil d'État's analysis (abstracts, classification) of a decision."""
    document, fetches = _linked_document(decision_id, "analysis_id", html_text)
    return {"analysis": document, "cache": fetches.report()}


def download_url(doc_id: str) -> str:
    return _ariane.ArianeWebClient().fetcher.url(
        "/plugin", {"plugin": "Service.downloadFilePagePlugin", "Index": "Ariane_Web", "Id": doc_id}
    )


def decision_texts(decision_ids: Iterable[str]) -> list[str]:
    """The texts a quote from these decisions may come from: each decision and its
    conclusions (read again through the cache), for the agent's quote check."""
    texts = []
    for decision_id in dict.fromkeys(decision_ids):
        for read, key in ((decision_get, "decision"), (conclusions_get, "conclusions")):
            try:
                texts.append(str(read(decision_id)[key]["text"]))
            except CaseLawError:
                continue  # none published, or the site down: that text is simply not there
    return texts
