"""What a reader of the codes gets (the tools, the pages and the agent share these forms)."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from django.urls import reverse
from django.utils.http import urlencode

from core.normalize import fold_accents
from sources.models import ArticleVersion, LegalCode
from sources.references import ResolvedRenvoi, cited_by, renvois_out
from sources.selectors import article_history

EXCERPT_CHARS = 320


def article_url(version: ArticleVersion, as_of: dt.date | None = None) -> str:
    url = reverse("sources:article", args=[version.code.slug, version.number])
    return f"{url}?{urlencode({'as_of': as_of.isoformat()})}" if as_of else url


def _iso(day: dt.date | None) -> str | None:
    return day.isoformat() if day else None


def article_ref(version: ArticleVersion, as_of: dt.date | None = None) -> dict[str, Any]:
    return {
        "version_id": version.pk,
        "code": version.code.slug,
        "code_title": version.code.title,
        "number": version.number,
        "heading": version.heading,
        "path": list(version.path),
        "valid_from": _iso(version.valid_from),
        "valid_to": _iso(version.valid_to),
        "state": version.state,
        "source_id": version.source_id or None,
        # False: the source gives this version's dates, not its text ("text" is empty).
        "text_known": version.text_known,
        "url": article_url(version, as_of),
    }


def excerpt(text: str, query: str = "") -> str:
    """About ``EXCERPT_CHARS`` of ``text``, around the first query word it holds."""
    flat = " ".join(text.split())
    if len(flat) <= EXCERPT_CHARS:
        return flat
    folded = fold_accents(flat, casefold=True)
    words = re.findall(r"\w{4,}", fold_accents(query, casefold=True))
    starts = [folded.find(w[:6]) for w in words]
    first = min([s for s in starts if s >= 0], default=0)
    begin = max(0, first - EXCERPT_CHARS // 3)
    snippet = flat[begin : begin + EXCERPT_CHARS]
    return ("…" if begin else "") + snippet + ("…" if begin + EXCERPT_CHARS < len(flat) else "")


def history_entries(version: ArticleVersion) -> list[dict[str, Any]]:
    return [
        {
            "valid_from": _iso(v.valid_from),
            "valid_to": _iso(v.valid_to),
            "state": v.state,
            "amended_by": v.amended_by or None,
            "text_known": v.text_known,
            "source_id": v.source_id or None,
            "current": v.pk == version.pk,
        }
        for v in article_history(version)
    ]


def renvoi_entries(resolved: list[ResolvedRenvoi], as_of: dt.date) -> list[dict[str, Any]]:
    entries = []
    for item in resolved:
        entry = item.as_dict()
        entry["targets"] = [article_ref(t, as_of) for t in item.targets]
        entries.append(entry)
    return entries


def reading_date(version: ArticleVersion, as_of: dt.date) -> dt.date:
    """The date a version is read at: ``as_of``, or, for a repealed article's last version
    shown after its end, its last day in force (its renvois are resolved then, and its link
    opens it without asking for repealed articles)."""
    if version.valid_to is not None and version.valid_to <= as_of:
        return version.valid_to - dt.timedelta(days=1)
    return as_of


def article_view(version: ArticleVersion, as_of: dt.date) -> dict[str, Any]:
    """The version with its text, history, outgoing renvois and citing articles."""
    as_of = reading_date(version, as_of)
    return {
        **article_ref(version, as_of),
        "text": version.text,
        "text_known": version.text_known,
        "history": history_entries(version),
        "renvois": renvoi_entries(renvois_out(version, as_of=as_of), as_of),
        "cited_by": [article_ref(v, as_of) for v in cited_by(version, as_of=as_of)],
    }


def code_entry(code: LegalCode) -> dict[str, Any]:
    return {
        "code": code.slug,
        "title": code.title,
        "articles": code.articles,
        "valid_from": _iso(code.valid_from),
        "snapshot_date": _iso(code.snapshot_date),
    }
