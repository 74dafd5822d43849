"""The ``legirag`` suite: Legirag's question set, scored as far as retrieval alone allows.

No LLM runs here. Per question:

* routing: :func:`sources.ranking.search_articles` over every imported code (on the
  question's ``dateReference``, else today), top 10 — is an expected article there
  (``article@10``), and is the top hit in an expected code (``code@1``)?
* dates (``articlesExclus``): none of the excluded articles may be in the top 10;
* renvois (``renvoi_obligatoire``): are the other expected articles reachable from the top
  hit through :func:`sources.references.renvoi_graph` (2 hops)?
* abstention (``hors_perimetre``, ``fausse_premisse``): needs the agent and its LLM; not
  scored (a low retrieval score is no honest signal that a question is out of scope).

Expected articles are LEGIARTI ids. A LEGI import stores them (``source_id``); a JSONL import
does not, so the code and number are then read from the question's ``notes`` ("code pénal
311-3", "code-de-la-route L223-7 … vers code pénal 226-21 et 226-22"), in order. An expected
article of a code that is not imported is counted apart, never as a miss.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.utils.text import slugify

from lab.search.evals.metrics import mean
from lab.sources.evals.lookup import require_path
from sources.models import ArticleVersion, LegalCode
from sources.numbers import normalise_article_number
from sources.ranking import search_articles
from sources.selectors import today_paris, versions_in_force

DEPTH = 10
NOT_SCORED = {"hors_perimetre", "fausse_premisse"}
_NUMBER = r"[LRDA]?\d{1,4}(?:-\d{1,4})*"
_MENTION = re.compile(
    r"(?P<code>\bcode(?:[- ][a-zàâçéèêëîïôûü']+){1,5}?)\s*,?\s*(?:article\s+)?"
    rf"(?P<first>{_NUMBER})\b(?P<more>(?:\s+et\s+{_NUMBER}\b)*)",
    re.IGNORECASE,
)


@dataclass
class Expected:
    """One expected article: where it is, or why it cannot be looked for."""

    legi_id: str
    code_named: str = ""
    number: str = ""
    code: LegalCode | None = None
    # "", "code_not_imported", "unmapped" (no imported id, nothing read from the notes).
    missing: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.legi_id,
            "code": self.code.slug if self.code else self.code_named or None,
            "number": self.number or None,
            "missing": self.missing or None,
        }


def note_mentions(note: str) -> list[tuple[str, str]]:
    """(code as written, number) in the order the note names them."""
    found: list[tuple[str, str]] = []
    for match in _MENTION.finditer(note):
        numbers = [match["first"], *re.findall(_NUMBER, match["more"] or "")]
        found += [(match["code"].strip(), n) for n in numbers]
    return found


def _code_for(named: str, codes: dict[str, LegalCode]) -> LegalCode | None:
    wanted = slugify(named)
    return codes.get(wanted) or next(
        (c for c in codes.values() if slugify(c.title) == wanted), None
    )


def expected_articles(questions: Sequence[dict[str, Any]]) -> dict[str, Expected]:
    """Every LEGIARTI id of the set, placed by the stored ``source_id`` or by the notes."""
    codes = {c.slug: c for c in LegalCode.objects.filter(versions__gt=0)}
    placed: dict[str, Expected] = {}
    for question in questions:
        ids = [*question.get("articlesAttendus", []), *question.get("articlesExclus", [])]
        mentions = note_mentions(str(question.get("notes") or ""))
        for position, legi_id in enumerate(ids):
            if legi_id in placed and placed[legi_id].missing != "unmapped":
                continue
            expected = Expected(legi_id)
            stored = ArticleVersion.objects.filter(source_id=legi_id).select_related("code")
            version = stored.first()
            if version is not None:
                expected.code, expected.number = version.code, version.number
            elif len(mentions) == len(ids):
                named, number = mentions[position]
                expected.code_named = named
                expected.number = normalise_article_number(number) or number
                expected.code = _code_for(named, codes)
                expected.missing = "" if expected.code else "code_not_imported"
            else:
                expected.missing = "unmapped"
            placed[legi_id] = expected
    return placed


def _reachable(top: ArticleVersion, wanted: list[Expected], as_of: dt.date) -> dict[str, Any]:
    try:
        from sources.references import renvoi_graph
    except ImportError:
        return {"available": False}
    graph = renvoi_graph(top, as_of=as_of, depth=2)
    nodes = {(v.code_id, v.number) for v, _ in graph.nodes.values()}
    countable = [e for e in wanted if e.code is not None]
    reached = [e.legi_id for e in countable if e.code and (e.code.pk, e.number) in nodes]
    return {
        "available": True,
        "graph_nodes": len(graph.nodes),
        "reached": reached,
        "countable": len(countable),
        "coverage": round(len(reached) / len(countable), 4) if countable else None,
    }


def _in(hits: list[ArticleVersion], expected: Expected) -> bool:
    return any(
        expected.code and v.code_id == expected.code.pk and v.number == expected.number
        for v in hits
    )


def score_question(
    question: dict[str, Any], placed: dict[str, Expected], mode: str = "hybrid"
) -> dict[str, Any]:
    category = str(question.get("category"))
    as_of = (
        dt.date.fromisoformat(question["dateReference"])
        if question.get("dateReference")
        else today_paris()
    )
    result: dict[str, Any] = {
        "id": question.get("id"),
        "category": category,
        "as_of": as_of.isoformat(),
    }
    hits = [
        h.version
        for h in search_articles(
            query=str(question["question"]), as_of=as_of, limit=DEPTH, mode=mode
        )
    ]
    result["top"] = [f"{v.code.slug} {v.number}" for v in hits[:3]]
    wanted = [placed[i] for i in question.get("articlesAttendus", [])]
    excluded = [placed[i] for i in question.get("articlesExclus", [])]
    result["expected"] = [e.as_dict() for e in wanted + excluded]
    if category in NOT_SCORED:
        result["scored"] = False
        result["why"] = "abstention needs the agent and its LLM"
        return result
    countable = [e for e in wanted if e.code is not None]
    result["not_imported"] = [e.legi_id for e in wanted if e.missing == "code_not_imported"]
    if countable:
        in_force = _in_force(countable, as_of)
        result["expected_in_force"] = in_force
        result["article@10"] = float(any(_in(hits, e) for e in countable))
        result["code@1"] = float(
            bool(hits) and hits[0].code_id in {e.code.pk for e in countable if e.code}
        )
    if excluded:
        result["excluded_absent@10"] = float(not any(_in(hits, e) for e in excluded if e.code))
    if category == "renvoi_obligatoire" and hits:
        result["renvois"] = _reachable(hits[0], wanted, as_of)
    result["scored"] = "article@10" in result or "excluded_absent@10" in result
    return result


def _in_force(expected: list[Expected], as_of: dt.date) -> int:
    """How many expected articles have a version in force on the date (a check of the data:
    the imported snapshot may predate the article)."""
    return sum(
        versions_in_force(as_of=as_of, codes=[e.code]).filter(number=e.number).exists()
        for e in expected
        if e.code is not None
    )


def _summary(results: list[dict[str, Any]], baseline: dict[str, Any]) -> list[dict[str, Any]]:
    base = {row["category"]: row for row in baseline.get("perCategory", [])}
    rows = []
    for category in dict.fromkeys(r["category"] for r in results):
        mine = [r for r in results if r["category"] == category]
        row: dict[str, Any] = {"category": category, "questions": len(mine)}
        for metric in ("article@10", "code@1", "excluded_absent@10"):
            values = [r[metric] for r in mine if metric in r]
            if values:
                row[metric] = round(mean(values), 4)
                row[f"{metric}_over"] = len(values)
        row["not_imported"] = sum(len(r.get("not_imported", [])) for r in mine)
        row["abstention"] = "not scored (needs the LLM)" if category in NOT_SCORED else None
        row["baseline"] = {k: v for k, v in base.get(category, {}).items() if k != "category"}
        rows.append(row)
    return rows


def run_legirag(data_dir: Path, *, mode: str = "hybrid") -> dict[str, Any]:
    folder = data_dir / "legirag-eval"
    questions = json.loads(
        require_path(folder / "questions.json", "pass --data-dir").read_text(encoding="utf-8")
    )
    baseline_path = folder / "baseline.json"
    baseline = (
        json.loads(baseline_path.read_text(encoding="utf-8")) if baseline_path.is_file() else {}
    )
    placed = expected_articles(questions)
    results = [score_question(q, placed, mode) for q in questions]
    renvois = [r["renvois"] for r in results if "renvois" in r]
    coverages = [r["coverage"] for r in renvois if r.get("available") and r["coverage"] is not None]
    return {
        "suite": "legirag",
        "mode": mode,
        "questions": len(results),
        "per_category": _summary(results, baseline),
        "routing_article@10": round(
            mean([r["article@10"] for r in results if "article@10" in r]), 4
        ),
        "routing_code@1": round(mean([r["code@1"] for r in results if "code@1" in r]), 4),
        "renvoi_coverage_mean": round(mean(coverages), 4) if coverages else None,
        "renvoi_graph": "available"
        if any(r.get("available") for r in renvois)
        else "not available",
        "baseline_overall": baseline.get("overall"),
        "baseline_crossRefCoverageMean": baseline.get("crossRefCoverageMean"),
        "expected_placed": {k: v.as_dict() for k, v in placed.items()},
        "results": results,
        "notes": [
            "routing = search_articles over all imported codes, top 10; the baseline's "
            "routingAccuracy is Legirag's own (its router's pick of code), comparable to code@1.",
            "abstention (hors_perimetre, fausse_premisse) needs the agent's LLM: not scored.",
            "expected articles of codes not imported are counted apart (not_imported), not as "
            "misses; ids not stored by the import are placed from the questions' notes.",
        ],
    }
