"""The administrative courts' open data (tribunaux administratifs and cours administratives
d'appel, Elasticsearch behind opendata.justice-administrative.fr).

Search: ``GET /model_search_juri/openData/{courts}/{keyword}/{limit}`` (courts as
``TA75 OR TA76``), no paging. Full text: ``GET /testView/openData/vu/{Identification}/
{Code_Juridiction}/{Numero_Dossier}`` → ``highlight.paragraph[0]``, paragraphs separated by
``$$$``. Lexroom's id: ``{Code_Juridiction}:{Numero_Dossier}:{Identification}``.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any
from urllib.parse import quote

from django.conf import settings

from sources.caselaw._http import CaseLawError, Fetched, Fetcher, source_changed
from sources.caselaw._text import visible_text

SITE = "Open data of the administrative courts (opendata.justice-administrative.fr)"
# The codes the API accepts: the tribunaux administratifs (40, overseas as TA101-TA109)
# and the nine cours administratives d'appel.
TA_CODES = (
    "TA06", "TA13", "TA14", "TA20", "TA21", "TA25", "TA30", "TA31", "TA33", "TA34", "TA35",
    "TA38", "TA44", "TA45", "TA51", "TA54", "TA59", "TA63", "TA64", "TA67", "TA69", "TA75",
    "TA76", "TA77", "TA78", "TA80", "TA83", "TA86", "TA87", "TA93", "TA95", "TA101", "TA102",
    "TA103", "TA104", "TA105", "TA106", "TA107", "TA108", "TA109",
)  # fmt: skip
CAA_CODES = ("CAA13", "CAA31", "CAA33", "CAA44", "CAA54", "CAA59", "CAA69", "CAA75", "CAA78")
COURT_CODES = frozenset({*TA_CODES, *CAA_CODES})
ID_RE = re.compile(
    r"(?P<court>(?:TA|CAA)\d{2,3}):(?P<number>[A-Za-z0-9]{1,20}):(?P<ident>[A-Za-z0-9_]{1,80})"
)
SHARE_URL = "https://opendata.justice-administrative.fr/recherche/shareFile"


def parse_id(value: str) -> tuple[str, str, str] | None:
    """``TA76:2600849:ORTA_2600849_20260218`` → (court, case number, identification)."""
    match = ID_RE.fullmatch(value)
    if match is None or match.group("court") not in COURT_CODES:
        return None
    return match.group("court"), match.group("number"), match.group("ident")


def _clean(value: Any) -> str:
    text = str(value).strip() if value is not None else ""
    return "" if text.lower() in {"undefined", "null", "none"} else text


def hit(source: dict[str, Any]) -> dict[str, Any]:
    court = _clean(source.get("Code_Juridiction"))
    number = _clean(source.get("Numero_Dossier"))
    ident = _clean(source.get("Identification")).removesuffix(".xml")
    raw_date = _clean(source.get("Date_Lecture"))[:10]
    try:
        date: str | None = dt.date.fromisoformat(raw_date).isoformat()
    except ValueError:
        date = None
    return {
        "source": "opendata",
        "id": f"{court}:{number}:{ident}",
        "kind": "decision",
        "jurisdiction": "CAA" if court.startswith("CAA") else "TA",
        "court": _clean(source.get("Nom_Juridiction")) or court,
        "court_code": court,
        "number": number,
        "case_numbers": [number] if number else [],
        "date": date,
        "formation": _clean(source.get("Formation_Jugement")),
        "classification": _clean(source.get("Code_Publication")).upper(),
        "decision_type": _clean(source.get("Type_Decision")),
        "ecli": _clean(source.get("Numero_ECLI")) or None,
        "permalink": f"{SHARE_URL}/{court}/{ident}" if court and ident else None,
        "abstract": "",
        "parties": None,
        "conclusions_id": None,
        "analysis_id": None,
    }


def _hits(fetched: Fetched) -> list[dict[str, Any]]:
    """The Elasticsearch hits of an answer: ``decisions.body.hits.hits``."""
    try:
        data = json.loads(fetched.body.decode("utf-8-sig"))
        hits = data["decisions"]["body"]["hits"]["hits"]
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise source_changed(SITE, "not JSON") from None
    except (KeyError, TypeError):
        raise source_changed(SITE, "no decisions.body.hits.hits") from None
    if not isinstance(hits, list) or not all(
        isinstance(h, dict) and isinstance(h.get("_source"), dict) for h in hits
    ):
        raise source_changed(SITE, "hits without _source")
    return hits


class OpenDataClient:
    def __init__(self) -> None:
        self.fetcher = Fetcher(settings.LEXROOM_OPENDATA_URL, SITE)

    def search(
        self, *, courts: list[str], keyword: str, limit: int
    ) -> tuple[list[dict[str, Any]], Fetched]:
        courts_part = quote(" OR ".join(courts), safe="")
        # Dots encoded too: a keyword ".." must not become a path segment httpx resolves.
        word = quote(keyword, safe="").replace(".", "%2E")
        path = f"/model_search_juri/openData/{courts_part}/{word}/{limit}"
        fetched = self.fetcher.get(self.fetcher.url(path), ttl=settings.LEXROOM_CASELAW_SEARCH_TTL)
        records = [hit(h["_source"]) for h in _hits(fetched)]
        if any(not parse_id(r["id"]) for r in records):
            raise source_changed(SITE, "a hit without Code_Juridiction, Numero_Dossier or id")
        return records, fetched

    def full_text(self, decision_id: str) -> tuple[str, dict[str, Any] | None, Fetched]:
        """The decision's paragraphs joined by blank lines, and its record if the answer
        carries one."""
        parsed = parse_id(decision_id)
        if parsed is None:
            raise CaseLawError("invalid_arguments", f"Not an open-data id: {decision_id!r}")
        court, number, ident = parsed
        path = f"/testView/openData/vu/{quote(ident)}.xml/{court}/{quote(number)}"
        fetched = self.fetcher.get(
            self.fetcher.url(path), ttl=settings.LEXROOM_CASELAW_DOCUMENT_TTL
        )
        hits = _hits(fetched)
        if not hits:
            raise CaseLawError("not_found", f"{decision_id}: not in the open data.")
        highlight = hits[0].get("highlight") or {}
        paragraphs = highlight.get("paragraph") if isinstance(highlight, dict) else None
        if not isinstance(paragraphs, list) or not paragraphs or not isinstance(paragraphs[0], str):
            raise source_changed(SITE, "no highlight.paragraph")
        parts = [visible_text(p) for p in paragraphs[0].split("$$$")]
        return "\n\n".join(p for p in parts if p), hit(hits[0]["_source"]), fetched
