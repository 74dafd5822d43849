"""Case law as the agent reads it: each decision a case-law tool returns gets a source
number, like a contract's article or a code's article, and is cited by court, date and case
number; what is numbered is what the model reads (points and conclusions cut to a length)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from django.urls import reverse

from agents.chat._sources import ARTICLE_CHARS, EXCERPT_CHARS, SourceBook

CASE_LAW_TOOLS = frozenset({"search_case_law", "get_decision", "get_conclusions", "get_analysis"})
DECISION_POINTS = 12  # of a decision read with get_decision, the first ones shown
POINT_CHARS = 1200
NOT_NUMBERED = {"n": None, "note": "not numbered: too many sources already"}


def decision_url(decision_id: str) -> str:
    return f"{reverse('sources:decision')}?id={quote(decision_id, safe='')}"


def _number(book: SourceBook, item: dict[str, Any]) -> int | None:
    return book.decision(item, decision_url(str(item["id"])))


def _hit(book: SourceBook, item: dict[str, Any]) -> dict[str, Any]:
    n = _number(book, item)
    if n is None:
        return dict(NOT_NUMBERED)
    return {
        "n": n,
        "court": item.get("court"),
        "date": item.get("date"),
        "number": item.get("number"),
        "classification": item.get("classification"),
        "formation": item.get("formation"),
        "id": item["id"],
        "abstract": str(item.get("abstract") or "")[:EXCERPT_CHARS],
    }


def _decision(book: SourceBook, item: dict[str, Any]) -> dict[str, Any]:
    view = _hit(book, item)
    if view["n"] is None:
        return view
    points = item.get("considerants") or []
    view.update(
        parties=item.get("parties"),
        ecli=item.get("ecli"),
        has_conclusions=bool(item.get("conclusions_id")),
        has_analysis=bool(item.get("analysis_id")),
        points=[
            {"n": p["n"], "text": str(p["text"])[:POINT_CHARS]} for p in points[:DECISION_POINTS]
        ],
        points_not_shown=max(0, len(points) - DECISION_POINTS),
        dispositif=[str(a["text"])[:POINT_CHARS] for a in item.get("dispositif") or []],
    )
    if not item.get("structure_recognised"):
        view["text"] = str(item.get("text") or "")[:ARTICLE_CHARS]
    return view


def case_law_view(
    book: SourceBook, name: str, content: dict[str, Any], arguments: dict[str, Any]
) -> tuple[dict[str, Any], int]:
    """The tool's result as the model reads it, and how many decisions it holds."""
    if name == "search_case_law":
        view = {
            "searched": content["searched"],
            "fallback": content["fallback"],
            "total": content["total"],
            "next_offset": content["next_offset"],
            "decisions": [_hit(book, hit) for hit in content["results"]],
            "warnings": content["warnings"],
        }
        return view, len(content["results"])
    if name == "get_decision":
        return {
            "decision": _decision(book, content["decision"]),
            "warnings": content["warnings"],
        }, 1
    key = "conclusions" if name == "get_conclusions" else "analysis"
    item = content[key]
    # Conclusions and analysis are cited through their decision's number.
    n = _number(book, {"id": item.get("decision_id") or arguments.get("id") or item["id"]})
    return {
        key: {
            "n": n,
            "text": str(item["text"])[: ARTICLE_CHARS * 2],
            "rapporteur_public": item.get("rapporteur_public"),
        }
    }, 1
