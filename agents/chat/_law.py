"""The French codes as the agent reads them: every article a legal tool returns gets a source
number, like a contract's article, and a search's best hits have their renvois followed by
the code (up to two hops) before the model drafts, so an answer on the law reads the articles
the law itself points to.
"""

from __future__ import annotations

from typing import Any

from agents.chat._sources import ARTICLE_CHARS, EXCERPT_CHARS, SourceBook

AUTO_FOLLOW_HITS = 2  # the search hits whose renvois the code follows
AUTO_FOLLOW_DEPTH = 2
# Articles read and search hits are cut like a contract's (ARTICLE_CHARS, EXCERPT_CHARS).
# A graph shows this many referenced articles, this long: what is numbered is what the model
# reads (a result cut at MAX_RESULT_CHARS would leave numbered sources it never saw).
GRAPH_ARTICLES, GRAPH_TEXT_CHARS = 12, 1500
AUTO_GRAPH_ARTICLES, AUTO_GRAPH_TEXT_CHARS = 6, 1200
UNKNOWN_TEXT = "only this version's dates are known, not its text: do not quote or describe it"
LAW_TOOLS = frozenset({"search_legal_codes", "get_article", "follow_renvois"})


def _article(book: SourceBook, item: dict[str, Any], key: str, chars: int) -> dict[str, Any]:
    n = book.law(item)
    if n is None:
        return {"n": None, "note": "not numbered: too many sources already"}
    view = {
        "n": n,
        "code": item.get("code_title") or item.get("code"),
        "number": item["number"],
        "path": item.get("path", []),
        "valid_from": item.get("valid_from"),
        "valid_to": item.get("valid_to"),
        key: str(item.get(key) or "")[:chars],
    }
    if item.get("text_known") is False:
        view["note"] = UNKNOWN_TEXT
    return view


def search_view(book: SourceBook, result: dict[str, Any]) -> dict[str, Any]:
    return {
        "as_of": result["as_of"],
        "articles": [_article(book, hit, "excerpt", EXCERPT_CHARS) for hit in result["results"]],
        "warnings": result.get("warnings", []),
    }


def article_view(book: SourceBook, result: dict[str, Any]) -> dict[str, Any]:
    article = result["article"]
    view = _article(book, article, "text", ARTICLE_CHARS)
    view["versions"] = [
        {"valid_from": v["valid_from"], "valid_to": v["valid_to"], "state": v["state"]}
        for v in article.get("history", [])
    ]
    view["renvois"] = [
        {
            "raw": renvoi["raw"],
            "precision": renvoi.get("precision"),
            "unresolved": renvoi.get("unresolved"),
            "targets": [_article(book, t, "heading", 200) for t in renvoi.get("targets", [])],
        }
        for renvoi in article.get("renvois", [])
    ]
    view["cited_by"] = [f"{c['code_title']}, {c['number']}" for c in article.get("cited_by", [])]
    return {"as_of": result["as_of"], "article": view, "warnings": result.get("warnings", [])}


def graph_view(
    book: SourceBook,
    result: dict[str, Any],
    *,
    articles: int = GRAPH_ARTICLES,
    chars: int = GRAPH_TEXT_CHARS,
) -> dict[str, Any]:
    shown = sorted(result["articles"], key=lambda item: item["hops"])[:articles]
    return {
        "as_of": result["as_of"],
        "root": _article(book, result["root"], "text", ARTICLE_CHARS),
        "referenced": [
            {**_article(book, item, "text", chars), "hops": item["hops"]} for item in shown
        ],
        "not_shown": len(result["articles"]) - len(shown),
        "unresolved": [
            {"from": u["from"], "raw": u["raw"], "why": u["unresolved"]}
            for u in result["unresolved"]
        ],
        "truncated": result["truncated"],
    }


def law_view(book: SourceBook, name: str, content: dict[str, Any]) -> tuple[dict[str, Any], int]:
    if name == "search_legal_codes":
        return search_view(book, content), len(content["results"])
    if name == "get_article":
        return article_view(book, content), 1
    return graph_view(book, content), len(content["articles"])


def to_follow(content: dict[str, Any]) -> list[dict[str, Any]]:
    """The follow_renvois calls the code makes after a search: its best hits, two hops."""
    return [
        {
            "code": hit["code"],
            "number": hit["number"],
            "as_of": content["as_of"],
            "depth": AUTO_FOLLOW_DEPTH,
        }
        for hit in content["results"][:AUTO_FOLLOW_HITS]
    ]
