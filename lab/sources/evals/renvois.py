"""eval_legal --suite renvois: the extractor against Légifrance's own links.

Pairs are (source article, target code slug, target number), compared as sets per article.
A range counts as its first article: Légifrance links "L. 1 à L. 5" once, to L. 1.
Mentions of laws and decrees (kind "text") and of codes not in the catalogue are not
scored: the gold holds code articles only.

- ``headline``: every article of the data's codes. Légifrance leaves many references
  unlinked, so part of its false positives are real references.
- ``linked_only``: the articles with at least one gold link.
- ``dev`` / ``held_out``: the articles split 50/50 by a hash of their id (headline scoring).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lab.sources.evals._legi_links import GoldArticle, GoldCode, read_codes
from sources.renvois import EXTRACTOR_VERSION, Mention, extract_references

ERROR_SAMPLE = 20
_CONTEXT = 60


@dataclass
class _Scored:
    """One article: what the extractor found and where, against the gold."""

    code: str
    article: GoldArticle
    predicted: dict[tuple[str, str], Mention]

    @property
    def true_positives(self) -> int:
        return len(self.article.links & self.predicted.keys())


def predicted_pairs(mentions: Iterable[Mention]) -> dict[tuple[str, str], Mention]:
    """The (code slug, number) pairs a text's mentions name, each with its first mention."""
    pairs: dict[tuple[str, str], Mention] = {}
    for mention in mentions:
        if mention.kind == "text" or not mention.code:
            continue
        # A range as its first article: Légifrance puts one link on "L. 1 à L. 5", to L. 1
        # (on this data, 211 range starts are gold links and 4 range ends).
        pairs.setdefault((mention.code, mention.number), mention)
    return pairs


def is_dev(article_id: str) -> bool:
    """The deterministic 50/50 split: even first byte of sha256(id) is dev."""
    return hashlib.sha256(article_id.encode()).digest()[0] % 2 == 0


def prf(rows: Iterable[_Scored]) -> dict[str, Any]:
    """Micro precision, recall and F1 over ``rows``."""
    tp = predicted = gold = articles = 0
    for row in rows:
        articles += 1
        tp += row.true_positives
        predicted += len(row.predicted)
        gold += len(row.article.links)
    precision = tp / predicted if predicted else 0.0
    recall = tp / gold if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "f1": round(f1, 4),
        "true_positives": tp,
        "predicted": predicted,
        "gold": gold,
        "articles": articles,
    }


def _score(codes: list[GoldCode]) -> tuple[list[_Scored], float]:
    scored: list[_Scored] = []
    started = time.perf_counter()
    for code in codes:
        for article in code.articles:
            mentions = extract_references(article.text, present_code=code.slug)
            scored.append(_Scored(code.slug, article, predicted_pairs(mentions)))
    return scored, time.perf_counter() - started


def _snippet(text: str, start: int, end: int) -> str:
    return " ".join(text[max(0, start - _CONTEXT) : end + _CONTEXT].split())


def _errors(scored: list[_Scored]) -> dict[str, list[dict[str, str]]]:
    """The first false positives (in linked articles) and false negatives, by article id."""
    false_positives: list[dict[str, str]] = []
    false_negatives: list[dict[str, str]] = []
    for row in sorted(scored, key=lambda r: r.article.article_id):
        article = row.article
        for pair, mention in row.predicted.items():
            if article.links and pair not in article.links:
                false_positives.append(
                    {
                        "article": f"{row.code} {article.number}",
                        "predicted": f"{pair[0]} {pair[1]}",
                        "raw": mention.raw,
                        "context": _snippet(article.text, mention.start, mention.end),
                    }
                )
        for pair in sorted(article.links - row.predicted.keys()):
            false_negatives.append(
                {
                    "article": f"{row.code} {article.number}",
                    "gold": f"{pair[0]} {pair[1]}",
                    "link_words": article.words.get(pair, ""),
                }
            )
    return {
        "false_positives": false_positives[:ERROR_SAMPLE],
        "false_negatives": false_negatives[:ERROR_SAMPLE],
    }


def _per_code(codes: list[GoldCode], scored: list[_Scored]) -> dict[str, Any]:
    report: dict[str, Any] = {}
    for code in codes:
        rows = [r for r in scored if r.code == code.slug]
        report[code.slug] = {
            "headline": prf(rows),
            "linked_only": prf(r for r in rows if r.article.links),
        }
    return report


def _gold_counts(codes: list[GoldCode]) -> dict[str, Any]:
    counts: dict[str, Any] = {
        code.slug: {
            "articles": len(code.articles),
            "anchors": code.anchors,
            "code_article_links": code.code_article_links,
            "unknown_number": code.unknown_number,
            "pairs": sum(len(a.links) for a in code.articles),
            "linked_articles": sum(1 for a in code.articles if a.links),
        }
        for code in codes
    }
    counts["total_pairs"] = sum(row["pairs"] for row in counts.values())
    return counts


def run_renvois_eval(legi_dir: Path) -> dict[str, Any]:
    """Score the extractor on the LEGI JSON codes of ``legi_dir`` (see the module doc)."""
    codes = read_codes(legi_dir)
    scored, seconds = _score(codes)
    return {
        "suite": "renvois",
        "extractor_version": EXTRACTOR_VERSION,
        "scoring": "set of (source article, target code, target number); a range counts as "
        "its first article; laws and decrees not scored",
        "codes": [code.slug for code in codes],
        "headline": prf(scored),
        "linked_only": prf(r for r in scored if r.article.links),
        "dev": prf(r for r in scored if is_dev(r.article.article_id)),
        "held_out": prf(r for r in scored if not is_dev(r.article.article_id)),
        "per_code": _per_code(codes, scored),
        "gold_links": _gold_counts(codes),
        "speed": {
            "articles": len(scored),
            "seconds": round(seconds, 3),
            "articles_per_s": round(len(scored) / seconds) if seconds else None,
        },
        "errors": _errors(scored),
    }
