"""ArianeWeb, the Conseil d'État's search (Sinequa): decisions of the CE, the CAA (a
selection) and the Tribunal des conflits, the rapporteurs publics' conclusions and the
analyses.

Search: ``GET /xsearch?type=json&advanced=1`` with one source (``SourceStr4``) per request,
pages of 20 (``SkipFrom``), newest first. Download: ``GET /plugin?plugin=Service.
downloadFilePagePlugin&Index=Ariane_Web&Id=…``: decisions and analyses as HTML, conclusions
as PDF.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from sources.caselaw._http import CaseLawError, Fetched, Fetcher, source_changed

SITE = "ArianeWeb (conseil-etat.fr)"
PAGE_SIZE = 20
DECISION_SOURCES = {"AW_DCE": "CE", "AW_DCA": "CAA", "AW_DTC": "TC"}
CONCLUSIONS_SOURCE = "AW_CRP"
ANALYSIS_SOURCES = {"AW_AJCE": "CE", "AW_AJCA": "CAA", "AW_AJTC": "TC"}
ALL_SOURCES = frozenset({*DECISION_SOURCES, CONCLUSIONS_SOURCE, *ANALYSIS_SOURCES})
ID_RE = re.compile(r"/Ariane_Web/(?P<source>AW_[A-Z]{2,4})/\|(?P<number>[A-Za-z0-9_.-]{1,40})")
PERMALINK_BASE = "https://www.conseil-etat.fr/fr/arianeweb"


@dataclass(frozen=True)
class SearchPage:
    total: int
    documents: list[dict[str, Any]]
    fetched: Fetched


def parse_id(value: str) -> tuple[str, str] | None:
    """``/Ariane_Web/AW_DCE/|488011`` → (``AW_DCE``, ``488011``); None if not one of ours."""
    match = ID_RE.fullmatch(value)
    if match is None or match.group("source") not in ALL_SOURCES:
        return None
    return match.group("source"), match.group("number")


def _text(doc: dict[str, Any], key: str) -> str:
    value = doc.get(key)
    return str(value).strip() if value not in (None, "") else ""


def _date(value: str) -> str | None:
    try:
        return dt.date.fromisoformat(value[:10]).isoformat()
    except ValueError:
        return None


def _linked_id(raw: str, source: str) -> str | None:
    """SourceCsv6/7 hold the linked document's id, in full or as its number."""
    first = raw.split(";")[0].strip()
    if not first:
        return None
    if parse_id(first):
        return first
    return (
        f"/Ariane_Web/{source}/|{first}" if re.fullmatch(r"[A-Za-z0-9_.-]{1,40}", first) else None
    )


def hit(doc: dict[str, Any]) -> dict[str, Any]:
    """A Sinequa document as Lexroom's decision record."""
    source = _text(doc, "SourceStr4")
    case_numbers = [n.strip() for n in _text(doc, "SourceCsv1").split(";") if n.strip()]
    date = _date(_text(doc, "SourceDateTime1"))
    base = _text(doc, "SourceStr39")
    permalink = (
        f"{PERMALINK_BASE}{base}{date}/{case_numbers[0]}"
        if base and date and case_numbers
        else None
    )
    applicant, defendant = _text(doc, "SourceStr13"), _text(doc, "SourceStr15")
    analysis_source = next(
        (s for s, j in ANALYSIS_SOURCES.items() if j == DECISION_SOURCES.get(source)), "AW_AJCE"
    )
    return {
        "source": "arianeweb",
        "id": _text(doc, "Id"),
        "kind": (
            "decision"
            if source in DECISION_SOURCES
            else "conclusions"
            if source == CONCLUSIONS_SOURCE
            else "analysis"
        ),
        "jurisdiction": DECISION_SOURCES.get(source) or ANALYSIS_SOURCES.get(source) or "CE",
        "court": _text(doc, "SourceStr3"),
        "number": _text(doc, "SourceStr5") or (case_numbers[0] if case_numbers else ""),
        "case_numbers": case_numbers,
        "date": date,
        "formation": _text(doc, "SourceStr7"),
        "classification": _text(doc, "SourceStr8").upper(),
        "ecli": _text(doc, "SourceStr30") or None,
        "permalink": permalink,
        "abstract": _text(doc, "SourceStr21"),
        "parties": {"applicant": applicant, "defendant": defendant}
        if applicant or defendant
        else None,
        "rapporteur": _text(doc, "SourceStr16"),
        "president": _text(doc, "SourceStr17"),
        "rapporteur_public": _text(doc, "SourceStr18"),
        "conclusions_id": _linked_id(_text(doc, "SourceCsv7"), CONCLUSIONS_SOURCE),
        "analysis_id": _linked_id(_text(doc, "SourceCsv6"), analysis_source),
    }


def _page(fetched: Fetched) -> SearchPage:
    try:
        data = json.loads(fetched.body.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise source_changed(SITE, "not JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("TotalCount"), int):
        raise source_changed(SITE, "no TotalCount")
    documents = data.get("Documents")
    if documents is None and data["TotalCount"] == 0:
        documents = []
    if not isinstance(documents, list) or not all(
        isinstance(d, dict) and isinstance(d.get("Id"), str) and parse_id(d["Id"])
        for d in documents
    ):
        raise source_changed(SITE, "Documents is not a list of documents with an Id")
    return SearchPage(data["TotalCount"], documents, fetched)


class ArianeWebClient:
    def __init__(self) -> None:
        self.fetcher = Fetcher(settings.LEXROOM_ARIANEWEB_URL, SITE)

    def search(
        self,
        *,
        source: str,
        text: str = "",
        classification: str = "",
        case_number: str = "",
        year: int | None = None,
        skip: int = 0,
    ) -> SearchPage:
        """One page (20) of one source, newest first. ``source`` "" searches every source
        (a search by case number returns the decision with its conclusions and analysis)."""
        params: dict[str, Any] = {"type": "json", "advanced": 1}
        if source:
            params["SourceStr4"] = source
        if text:
            params["SearchText"] = text
        if classification:
            params["SourceStr8"] = classification
        if case_number:
            params["SourceCsv1"] = case_number
        if year is not None:
            params["SourceInt1"] = year
        if skip:
            params["SkipFrom"] = skip
        params["sort"] = "SourceDateTime1 desc"
        url = self.fetcher.url("/xsearch", params)
        return _page(self.fetcher.get(url, ttl=settings.LEXROOM_CASELAW_SEARCH_TTL))

    def download(self, doc_id: str) -> Fetched:
        if parse_id(doc_id) is None:
            raise CaseLawError("invalid_arguments", f"Not an ArianeWeb id: {doc_id!r}")
        params = {"plugin": "Service.downloadFilePagePlugin", "Index": "Ariane_Web", "Id": doc_id}
        url = self.fetcher.url("/plugin", params)
        return self.fetcher.get(url, ttl=settings.LEXROOM_CASELAW_DOCUMENT_TTL)
