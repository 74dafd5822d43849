"""The gold of the renvois eval: the links Légifrance itself put in the LEGI JSON articles.

An article's ``texteHtml`` carries ``<a href='/affichCodeArticle.do?cidTexte=LEGITEXT…&
idArticle=LEGIARTI…'>`` around the references it makes; only those (an article of a code)
are gold. Links to a whole code (``affichCode.do``) or to a law (``affichTexte*.do``) are
counted apart. The target's number comes from the link's title ("… - art. L123-2 (M)"),
else from the article it points to when that is in the data, else from the link's words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.utils.text import slugify

from sources.codes_catalog import SLUGS_BY_LEGI_ID
from sources.importing import html_to_text
from sources.numbers import stored_number
from sources.renvois import NUMBER_RE

_ANCHOR = re.compile(r"<a\b([^>]*)>(.*?)</a>", re.DOTALL | re.IGNORECASE)
_CODE_ARTICLE = re.compile(
    r"affichCodeArticle\.do\?cidTexte=(?P<code>LEGITEXT\d+)&(?:amp;)?idArticle=(?P<id>LEGIARTI\d+)"
)
# The title (or alt) Légifrance writes: "Code de l'environnement - art. L123-2 (M)".
_TITLE_NUMBER = re.compile(r"- art\.\s+(?P<number>[^()'\"]+?)\s*\([A-Z]+\)")
_TAGS = re.compile(r"<[^>]+>")
# Older ids Légifrance still links to, for a code since renamed: "Code rural (nouveau)" is
# the code rural et de la pêche maritime.
_RENAMED = {"LEGITEXT000006071367": "LEGITEXT000022197698"}


@dataclass
class GoldArticle:
    """One source article: its text as imported, and the code articles it links to."""

    article_id: str
    number: str
    text: str
    links: set[tuple[str, str]] = field(default_factory=set)
    # The words of each gold link, for the error sample.
    words: dict[tuple[str, str], str] = field(default_factory=dict)


@dataclass
class GoldCode:
    slug: str
    title: str
    articles: list[GoldArticle] = field(default_factory=list)
    # Every anchor, the code-article ones, and those whose target number stayed unknown.
    anchors: int = 0
    code_article_links: int = 0
    unknown_number: int = 0


def _articles(node: Any) -> Iterator[dict[str, Any]]:
    for child in node.get("children") or [] if isinstance(node, dict) else []:
        if not isinstance(child, dict) or not isinstance(child.get("data"), dict):
            continue
        if child.get("type") == "article":
            yield child["data"]
        else:
            yield from _articles(child)


def read_codes(legi_dir: Path) -> list[GoldCode]:
    """Every ``LEGITEXT*.json`` code of ``legi_dir`` with its gold links, by file name."""
    trees = {
        path: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(legi_dir.glob("LEGITEXT*.json"))
    }
    numbers: dict[str, str] = {}
    for tree in trees.values():
        numbers.update(_numbers_by_id(tree))
    titles = _index_titles(legi_dir / "index.json")
    for tree in trees.values():
        data = tree.get("data") or {}
        titles.setdefault(str(data.get("cid") or data.get("id")), str(data.get("title") or ""))
    return [_read_code(tree, numbers, titles) for tree in trees.values()]


def _numbers_by_id(tree: Any) -> dict[str, str]:
    found: dict[str, str] = {}
    for article in _articles(tree):
        number = stored_number(str(article.get("num") or ""))
        ids = {article.get("id"), article.get("cid")}
        ids.update(v.get("id") for v in article.get("articleVersions") or [] if isinstance(v, dict))
        found.update({str(i): number for i in ids if i})
    return found


def _index_titles(path: Path) -> dict[str, str]:
    """Code titles by LEGITEXT id, for links to codes the catalogue does not list."""
    if not path.is_file():
        return {}
    rows = json.loads(path.read_text(encoding="utf-8"))
    return {str(r.get("id")): str(r.get("titrefull") or r.get("titre") or "") for r in rows}


def code_slug_for(legi_id: str, titles: dict[str, str]) -> str:
    """The slug of the code ``legi_id``: catalogue, then the data's index, then the id."""
    known = SLUGS_BY_LEGI_ID.get(_RENAMED.get(legi_id, legi_id))
    if known:
        return known
    title = titles.get(legi_id, "").strip().rstrip(".")
    return slugify(title) if title else f"legitext:{legi_id}"


def _read_code(tree: Any, numbers: dict[str, str], titles: dict[str, str]) -> GoldCode:
    data = tree.get("data") or {}
    title = str(data.get("title") or "").strip()
    code = GoldCode(slug=slugify(title), title=title)
    for article in _articles(tree):
        markup = str(article.get("texteHtml") or article.get("texte") or "")
        gold = GoldArticle(
            article_id=str(article.get("id") or ""),
            number=stored_number(str(article.get("num") or "")),
            text=html_to_text(markup),
        )
        for anchor in _ANCHOR.finditer(markup):
            code.anchors += 1
            target = _CODE_ARTICLE.search(anchor.group(1))
            if target is None:
                continue
            code.code_article_links += 1
            words = " ".join(_TAGS.sub("", anchor.group(2)).split())
            number = _target_number(anchor.group(1), target["id"], words, numbers)
            if not number:
                code.unknown_number += 1
                continue
            link = (code_slug_for(target["code"], titles), number)
            gold.links.add(link)
            gold.words.setdefault(link, words)
        code.articles.append(gold)
    return code


def _target_number(attributes: str, article_id: str, words: str, numbers: dict[str, str]) -> str:
    titled = _TITLE_NUMBER.search(attributes)
    if titled:
        return stored_number(titled["number"])
    if article_id in numbers:
        return numbers[article_id]
    written = NUMBER_RE.search(words.replace("article ", " ").replace("articles ", " "))
    return stored_number(written.group().replace("\u2011", "-")) if written else ""
