"""LEGI JSON (the DILA's LEGI base as SocialGouv's legi-data package ships it): one file per
code, a tree of sections whose leaves are articles. Each article carries its current text and
the dates of all its versions; older texts are known only from earlier imports."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.utils.text import slugify

from sources.importing._html import html_to_text
from sources.importing._records import CodeRecord, ImportProblem, VersionRecord
from sources.numbers import stored_number

# Légifrance's "until further notice" (2999-01-01) and anything past it.
_OPEN_END = dt.date(2999, 1, 1)


def _date(millis: Any, where: str) -> dt.date | None:
    if millis is None:
        return None
    try:
        day = dt.datetime.fromtimestamp(int(millis) / 1000, tz=dt.UTC).date()
    except (TypeError, ValueError, OverflowError, OSError):
        raise ImportProblem(f"{where}: date {millis!r} is not a timestamp") from None
    return None if day >= _OPEN_END else day


def _iso(text: Any) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(text)[:10]) if text else None
    except ValueError:
        return None


def read_legi_json(path: Path) -> CodeRecord:
    """One code from a LEGI JSON file. Raises :class:`ImportProblem` on malformed input."""
    try:
        tree = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportProblem(f"{path}: cannot read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise ImportProblem(f"{path}: not JSON (line {exc.lineno}: {exc.msg})") from None
    data = tree.get("data") if isinstance(tree, dict) else None
    if not isinstance(data, dict) or "code" not in (tree.get("type"), data.get("type")):
        raise ImportProblem(f"{path}: not a LEGI code (expected {{'type': 'code', 'data': …}})")
    title = str(data.get("title") or "").strip()
    if not title:
        raise ImportProblem(f"{path}: the code has no title")
    record = CodeRecord(
        slug=slugify(title)[:120],
        title=title,
        source_format="legi-json",
        legi_id=str(data.get("cid") or data.get("id") or "")[:30],
        snapshot_date=_iso(data.get("dateModif")) or _iso(data.get("jurisDate")),
    )
    for position, (section_path, article) in enumerate(_articles(tree, [])):
        record.versions.extend(_versions(article, section_path, position, path))
    if not record.versions:
        raise ImportProblem(f"{path}: no article in this code")
    return record


def _articles(node: Any, trail: list[str]) -> Iterator[tuple[list[str], dict[str, Any]]]:
    for child in node.get("children") or [] if isinstance(node, dict) else []:
        if not isinstance(child, dict) or not isinstance(child.get("data"), dict):
            continue
        if child.get("type") == "article":
            yield trail, child["data"]
        else:
            title = str(child["data"].get("title") or "").strip()
            yield from _articles(child, [*trail, title] if title else trail)


def _versions(
    article: dict[str, Any], trail: list[str], position: int, path: Path
) -> list[VersionRecord]:
    current_id = str(article.get("id") or "")
    where = f"{path}: article {article.get('num') or current_id or position}"
    if not current_id.startswith("LEGIARTI"):
        raise ImportProblem(f"{where}: no LEGIARTI id")
    number = stored_number(str(article.get("num") or "")) or current_id
    key = str(article.get("cid") or current_id)[:60]
    amendments = _amendments(article)
    current = VersionRecord(
        number=number,
        article_key=key,
        version_key=current_id,
        source_id=current_id,
        state=str(article.get("etat") or "VIGUEUR")[:20],
        valid_from=_date(article.get("dateDebut"), where),
        valid_to=_date(article.get("dateFin"), where),
        text=html_to_text(str(article.get("texteHtml") or article.get("texte") or "")),
        path=trail,
        position=position,
    )
    current.amended_by = amendments.get(current.valid_from, "")
    versions = [current]
    for other in article.get("articleVersions") or []:
        other_id = str(other.get("id") or "") if isinstance(other, dict) else ""
        if not other_id.startswith("LEGIARTI") or other_id == current_id:
            continue
        start = _date(other.get("dateDebut"), where)
        versions.append(
            VersionRecord(
                number=number,
                article_key=key,
                version_key=other_id,
                source_id=other_id,
                state=str(other.get("etat") or "MODIFIE")[:20],
                valid_from=start,
                valid_to=_date(other.get("dateFin"), where),
                text="",
                text_known=False,
                path=trail,
                position=position,
                amended_by=amendments.get(start, ""),
            )
        )
    return versions


def _amendments(article: dict[str, Any]) -> dict[dt.date | None, str]:
    """The text that started each version, by the version's first day."""
    found: dict[dt.date | None, str] = {}
    for link in article.get("lienModifications") or []:
        if not isinstance(link, dict) or link.get("linkType") != "MODIFIE":
            continue
        start = _iso(link.get("dateDebutCible"))
        if start is not None and start < _OPEN_END:
            found.setdefault(start, str(link.get("textTitle") or "")[:300])
    return found
