"""A local HTTP server that speaks both case-law sites' formats, with invented decisions.

ArianeWeb: ``/xsearch`` (Sinequa JSON: one source per request, class, case number, year,
free text, pages of 20 newest first) and ``/plugin`` (decisions and analyses as Latin-1
HTML, conclusions as PDF). Open data: ``/recherche/api/model_search_juri/…`` and
``/recherche/api/testView/…`` (Elasticsearch hits, ``$$$``-separated highlights). Every
request is logged with the server's own clock, and the server can be told to fail (a
status) or to answer in a changed shape.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

PAGE = 20
ACCENTS = "Conseil d'État, décision relative à l'été, à la fonction publique et à l'éolienne"


def _ce_doc(n: int, source: str, cls: str, date: dt.date, *, extra: str = "") -> dict[str, Any]:
    number = str(480000 + n)
    doc: dict[str, Any] = {
        "Id": f"/Ariane_Web/{source}/|{number}",
        "SourceStr3": {
            "AW_DCE": "Conseil d'État",
            "AW_DTC": "Tribunal des conflits",
            "AW_DCA": "CAA de Lyon",
        }[source],
        "SourceStr4": source,
        "SourceStr5": number,
        "SourceStr7": "Section" if cls == "A" else "5ème chambre",
        "SourceStr8": cls,
        "SourceStr13": f"Société Éolia {n}",
        "SourceStr15": "Ministre de la transition écologique",
        "SourceStr16": "Mme Rapporteure",
        "SourceStr18": "M. Public",
        "SourceStr21": f"Éolienne et urbanisme, affaire {n}. {extra}".strip(),
        "SourceStr30": f"ECLI:FR:CE:{date.year}:{number}.{date:%Y%m%d}",
        "SourceStr39": {
            "AW_DCE": "/CE/decision/",
            "AW_DTC": "/TC/decision/",
            "AW_DCA": "/CAA/decision/",
        }[source],
        "SourceCsv1": number,
        "SourceInt1": date.year,
        "SourceDateTime1": f"{date.isoformat()} 00:00:00",
    }
    if n % 3 == 0 and source == "AW_DCE":
        doc["SourceCsv7"] = f"/Ariane_Web/AW_CRP/|{number}"
        doc["SourceCsv6"] = f"/Ariane_Web/AW_AJCE/|{number}"
    return doc


def default_corpus() -> list[dict[str, Any]]:
    """CE: 12 A, 15 B, 18 C and 2 without a class; TC: 3 A and 4 C; CAA: 5 B. Dates spread
    over 2023-2024, some shared between CE and TC (the merge's ties)."""
    docs = []
    start = dt.date(2024, 12, 20)
    plan = [
        ("AW_DCE", "A", 12),
        ("AW_DCE", "B", 15),
        ("AW_DCE", "C", 18),
        ("AW_DCE", "", 2),
        ("AW_DTC", "A", 3),
        ("AW_DTC", "C", 4),
        ("AW_DCA", "B", 5),
    ]
    n = 0
    for source, cls, count in plan:
        for i in range(count):
            n += 1
            docs.append(_ce_doc(n, source, cls, start - dt.timedelta(days=41 * i)))
    return docs


def decision_html(doc: dict[str, Any]) -> bytes:
    number = doc["SourceStr5"]
    html = f"""<html><head><meta charset="iso-8859-1"><title>Décision {number}</title></head>
<body><p>{doc["SourceStr3"]}</p><p>N° {number}</p><p>{doc.get("SourceStr30", "")}</p>
<p>Société Éolia c/ Ministre de la transition écologique</p>
<p>Lecture du {doc["SourceDateTime1"][:10]}</p>
<p>Vu la procédure suivante :</p>
<p>La société Éolia a demandé l'annulation de l'arrêté préfectoral.</p>
<p>Vu les autres pièces du dossier ;</p>
<p>Vu le code de l'environnement ;</p>
<p>Considérant ce qui suit :</p>
<p>1. Il ressort des pièces du dossier que le préfet a refusé l'autorisation d'exploiter.</p>
<p>2. Aux termes de l'article L. 181-3 du code de l'environnement, l'autorisation est
accordée si les mesures qu'elle comporte assurent la prévention des dangers.</p>
<p>3. Il résulte de ce qui précède que la requête doit être rejetée. {ACCENTS}.</p>
<p>D E C I D E :</p><p>--------------</p>
<p>Article 1er : La requête de la société Éolia est rejetée.</p>
<p>Article 2 : La présente décision sera notifiée à la société Éolia.</p>
</body></html>"""
    return html.encode("latin-1")


def analysis_html(doc: dict[str, Any]) -> bytes:
    text = f"<html><body><p>Analyse de la décision {doc['SourceStr5']} : urbanisme, éolienne."
    return (text + "</p></body></html>").encode("latin-1")


def conclusions_pdf(doc: dict[str, Any]) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(
        0,
        6,
        f"Conclusions de M. Public, rapporteur public, sur l'affaire "
        f"n° {doc['SourceStr5']}. L'éolienne ne méconnaît pas l'intérêt.",
    )
    return bytes(pdf.output())


def opendata_corpus() -> list[dict[str, Any]]:
    hits = []
    for i in range(30):
        court = ("TA75", "TA69", "TA76")[i % 3]
        number = f"{2400100 + i}"
        date = dt.date(2024, 11, 30) - dt.timedelta(days=17 * i)
        ident = f"DTA_{number}_{date:%Y%m%d}"
        hits.append(
            {
                "Identification": f"{ident}.xml",
                "Code_Juridiction": court,
                "Nom_Juridiction": {
                    "TA75": "Tribunal Administratif de Paris",
                    "TA69": "Tribunal Administratif de Lyon",
                    "TA76": "Tribunal Administratif de Rouen",
                }[court],
                "Numero_ECLI": "undefined" if i % 2 else f"ECLI:FR:TA{court[2:]}:2024:{number}",
                "Code_Publication": "ABCD"[i % 4],
                "Formation_Jugement": "undefined",
                "Numero_Dossier": number,
                "Type_Decision": "Décision",
                "Date_Lecture": date.isoformat(),
            }
        )
    return hits


@dataclass
class Logged:
    at: float  # the server's clock (time.monotonic)
    path: str


@dataclass
class FakeCaseLaw:
    corpus: list[dict[str, Any]] = field(default_factory=default_corpus)
    opendata: list[dict[str, Any]] = field(default_factory=opendata_corpus)
    log: list[Logged] = field(default_factory=list)
    fail_status: int | None = None
    fail_count: int = 0  # fail this many requests (0: all while fail_status is set)
    changed_shape: bool = False
    delay: float = 0.0  # seconds each answer takes (a site under load)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def requests(self, prefix: str = "") -> list[Logged]:
        return [entry for entry in self.log if entry.path.startswith(prefix)]

    # --- ArianeWeb --------------------------------------------------------------------

    def xsearch(self, query: dict[str, str]) -> dict[str, Any]:
        docs = self.corpus
        for key in ("SourceStr4", "SourceStr8"):
            if key in query:
                docs = [d for d in docs if d.get(key, "") == query[key]]
        if "SourceCsv1" in query:
            wanted = query["SourceCsv1"]
            docs = [d for d in docs if wanted in d.get("SourceCsv1", "").split(";")]
            docs += [
                self._linked(d, key)
                for d in docs
                for key in ("SourceCsv6", "SourceCsv7")
                if d.get(key)
            ]
        if "SourceInt1" in query:
            docs = [d for d in docs if str(d.get("SourceInt1")) == query["SourceInt1"]]
        if query.get("SearchText"):
            words = query["SearchText"].lower().split()
            docs = [
                d
                for d in docs
                if all(w in json.dumps(d, ensure_ascii=False).lower() for w in words)
            ]
        docs = sorted(docs, key=lambda d: d["SourceDateTime1"], reverse=True)
        skip = int(query.get("SkipFrom", 0))
        return {
            "TotalCount": len(docs),
            "DocumentsPerPage": PAGE,
            "Documents": docs[skip : skip + PAGE],
        }

    def _linked(self, doc: dict[str, Any], key: str) -> dict[str, Any]:
        source = "AW_AJCE" if key == "SourceCsv6" else "AW_CRP"
        return {
            "Id": doc[key],
            "SourceStr4": source,
            "SourceCsv1": doc["SourceCsv1"],
            "SourceDateTime1": doc["SourceDateTime1"],
        }

    def download(self, doc_id: str) -> tuple[bytes, str] | None:
        source, _, number = doc_id.removeprefix("/Ariane_Web/").partition("/|")
        base = next((d for d in self.corpus if d["SourceCsv1"] == number), None)
        if base is None:
            return None
        if source == "AW_CRP":
            return conclusions_pdf(base), "application/pdf"
        if source.startswith("AW_AJ"):
            return analysis_html(base), "text/html; charset=iso-8859-1"
        return decision_html(base), "text/html; charset=iso-8859-1"

    # --- Open data --------------------------------------------------------------------

    def es(self, hits: list[dict[str, Any]], highlight: str | None = None) -> dict[str, Any]:
        rows = [
            {
                "_id": h["Identification"],
                "_source": h,
                "highlight": {"paragraph": [highlight]} if highlight else None,
            }
            for h in hits
        ]
        return {"decisions": {"body": {"hits": {"total": {"value": len(rows)}, "hits": rows}}}}

    def opendata_search(self, courts: str, keyword: str, limit: int) -> dict[str, Any]:
        codes = set(courts.split(" OR "))
        hits = [h for h in self.opendata if h["Code_Juridiction"] in codes]
        if keyword.isdigit():  # a case number; the invented decisions match any words
            hits = [h for h in hits if keyword in h["Numero_Dossier"]]
        return self.es(hits[:limit])

    def opendata_view(self, ident: str, court: str, number: str) -> dict[str, Any]:
        hit = next(
            (
                h
                for h in self.opendata
                if h["Identification"] == ident
                and h["Code_Juridiction"] == court
                and h["Numero_Dossier"] == number
            ),
            None,
        )
        if hit is None:
            return self.es([])
        paragraphs = [
            f"{hit['Nom_Juridiction']}",
            f"N° {number}",
            "M. <mark>Dupré</mark> c/ Préfet de la Seine-Maritime",
            "Vu la procédure suivante :",
            "M. Dupré demande l'annulation de l'arrêté.",
            "Vu les autres pièces du dossier.",
            "Considérant ce qui suit :",
            "1. Le préfet a méconnu l'article L. 313-11 du code de l'entrée et du séjour.",
            "D E C I D E :",
            "Article 1er : L'arrêté est annulé.",
        ]
        return self.es([hit], "$$$".join(paragraphs))


class _Handler(BaseHTTPRequestHandler):
    fake: FakeCaseLaw

    def log_message(self, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        fake = self.fake
        fake.log.append(Logged(time.monotonic(), self.path))
        if fake.delay:
            time.sleep(fake.delay)
        failing = fake.fail_count <= 0 or len(fake.log) <= fake.fail_count
        if fake.fail_status is not None and failing:
            self._send(fake.fail_status, b"<html>Service Unavailable</html>", "text/html")
            return
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        if fake.changed_shape:
            self._send(200, json.dumps({"results": [], "count": 0}).encode(), "application/json")
            return
        if parts.path == "/xsearch":
            self._json(fake.xsearch(query))
        elif parts.path == "/plugin":
            found = fake.download(query.get("Id", ""))
            if found is None:
                self._send(404, b"not found", "text/plain")
            else:
                self._send(200, *found)
        elif parts.path.startswith("/recherche/api/model_search_juri/openData/"):
            courts, keyword, limit = parts.path.split("/")[-3:]
            self._json(fake.opendata_search(unquote(courts), unquote(keyword), int(limit)))
        elif parts.path.startswith("/recherche/api/testView/openData/vu/"):
            ident, court, number = (unquote(p) for p in parts.path.split("/")[-3:])
            self._json(fake.opendata_view(ident, court, number))
        else:
            self._send(404, b"no route", "text/plain")

    def _json(self, data: dict[str, Any]) -> None:
        self._send(200, json.dumps(data, ensure_ascii=False).encode(), "application/json")


def serve(fake: FakeCaseLaw) -> tuple[ThreadingHTTPServer, threading.Thread]:
    handler = type("Handler", (_Handler,), {"fake": fake})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    fake.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, thread
