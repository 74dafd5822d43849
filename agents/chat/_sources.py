"""The numbered sources of one answer, and the tool results as the model reads them.

Every contract and article a tool returns gets a number; the model cites ``[n]`` and the
code, not the model, turns the number back into a contract, an article and a page. What
the model reads of a tool result is a compact JSON view of it between ``<tool_result>``
tags: text quoted from documents is data there, never instructions.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Any

# Any spelling of the delimiter inside quoted text (case, spaces, attributes) is defused, and
# so are lookalikes: fullwidth or compatibility forms (NFKC) and invisible format characters
# (zero-width space, soft hyphen) inside it.
_DELIMITER = re.compile(r"<(\s*/?\s*)(tool_result\b[^>]*)>", re.IGNORECASE)
_TOOL_NAME = re.compile(r"[^\w.-]")
EXCERPT_CHARS = 600  # of an article, in a search result
ARTICLE_CHARS = 2400  # of an article read with get_contract (a whole chunk)
MAX_RESULT_CHARS = 24_000  # of one tool result shown to the model


@dataclass
class Source:
    n: int
    kind: str  # "article" or "contract"
    contract_id: str
    title: str
    chunk_id: int | None = None
    heading: str | None = None
    page: int | None = None
    # kind "law": an article of a code (sources.ArticleVersion), read at the turn's date.
    version_id: int | None = None
    url: str | None = None
    # kind "decision": a court decision read from the case-law sites (its source's id).
    decision_id: str | None = None


@dataclass
class Listing:
    """What one filter-only search returned: every contract, and the ones set apart."""

    contracts: list[str]
    excluded_unknown: dict[str, str]  # contract id -> why undecided
    excluded_by_amendment: dict[str, str]  # contract id -> the amendment's explanation
    titles: dict[str, str]


@dataclass
class SourceBook:
    sources: list[Source] = field(default_factory=list)
    max_articles: int = 30
    listings: list[Listing] = field(default_factory=list)

    def _find(self, kind: str, key: str | int) -> Source | None:
        for source in self.sources:
            if source.kind != kind:
                continue
            if kind == "law":
                if source.version_id == key:
                    return source
            elif kind == "decision":
                if source.decision_id == key:
                    return source
            elif (source.chunk_id if kind == "article" else source.contract_id) == key:
                return source
        return None

    def law(self, item: dict[str, Any]) -> int | None:
        """An article of a code (a search hit, an article read, a renvoi's target)."""
        found = self._find("law", int(item["version_id"]))
        if found is not None:
            return found.n
        if sum(source.kind != "contract" for source in self.sources) >= self.max_articles:
            return None
        validity = _validity(item.get("valid_from"), item.get("valid_to"))
        source = Source(
            len(self.sources) + 1,
            "law",
            "",
            str(item.get("code_title") or item.get("code") or ""),
            heading=f"art. {item['number']}" + (f" ({validity})" if validity else ""),
            version_id=int(item["version_id"]),
            url=str(item.get("url") or ""),
        )
        self.sources.append(source)
        return source.n

    def decision(self, item: dict[str, Any], url: str) -> int | None:
        """A court decision (a search hit or a decision read), one number per decision."""
        found = self._find("decision", str(item["id"]))
        if found is not None:
            return found.n
        if sum(source.kind != "contract" for source in self.sources) >= self.max_articles:
            return None
        parts = [
            item.get("court") or item.get("jurisdiction"),
            item.get("formation"),
            item.get("date"),
            f"n° {item['number']}" if item.get("number") else None,
        ]
        source = Source(
            len(self.sources) + 1,
            "decision",
            "",
            ", ".join(str(p) for p in parts if p) or str(item["id"]),
            url=url,
            decision_id=str(item["id"]),
        )
        self.sources.append(source)
        return source.n

    def contract(self, contract_id: str, title: str) -> int:
        found = self._find("contract", contract_id)
        if found is None:
            found = Source(len(self.sources) + 1, "contract", contract_id, title)
            self.sources.append(found)
        return found.n

    def article(self, contract_id: str, title: str, item: dict[str, Any]) -> int | None:
        """The article's number; None past ``max_articles`` (the model is told so)."""
        found = self._find("article", int(item["chunk_id"]))
        if found is not None:
            return found.n
        if sum(source.kind == "article" for source in self.sources) >= self.max_articles:
            return None
        page = item.get("page", item.get("page_start"))
        source = Source(
            len(self.sources) + 1,
            "article",
            contract_id,
            title,
            int(item["chunk_id"]),
            item.get("heading"),
            int(page) if page is not None else None,
        )
        self.sources.append(source)
        return source.n

    def get(self, n: int) -> Source | None:
        return self.sources[n - 1] if 1 <= n <= len(self.sources) else None

    def label(self, source: Source) -> str:
        if source.kind == "decision":
            return source.title
        if source.kind == "law":
            return ", ".join(p for p in (source.title, source.heading) if p)
        parts = [source.contract_id, *([source.title] if source.title else [])]
        if source.heading:
            parts.append(source.heading)
        if source.page is not None:
            parts.append(f"p. {source.page}")
        return " — ".join(parts)

    def numbered(self) -> str:
        return "\n".join(f"[{source.n}] {self.label(source)}" for source in self.sources)

    def as_state(self) -> dict[str, Any]:
        return {
            "sources": [asdict(source) for source in self.sources],
            "max_articles": self.max_articles,
            "listings": [asdict(listing) for listing in self.listings],
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> SourceBook:
        return cls(
            [Source(**source) for source in state.get("sources", [])],
            int(state.get("max_articles", 30)),
            [Listing(**listing) for listing in state.get("listings", [])],
        )


def _validity(valid_from: Any, valid_to: Any) -> str:
    """The version's window, language-neutral: "2016-03-01 →", "2010-01-01 → 2016-03-01"."""
    if not valid_from and not valid_to:
        return ""
    return f"{valid_from or ''} → {valid_to or ''}".strip()


def _party_names(record: dict[str, Any]) -> list[str]:
    return [party["name"] for party in record.get("parties", [])]


def _contract_view(book: SourceBook, record: dict[str, Any]) -> dict[str, Any]:
    contract_id, title = record["contract_id"], record["title"]
    return {
        "n": book.contract(contract_id, title),
        "contract_id": contract_id,
        "title": title,
        "contract_type": record.get("contract_type"),
        "parties": _party_names(record),
        "signature_date": record.get("signature_date_as_known") or record.get("signature_date"),
        "end_date": record.get("end_date"),
        "end_date_kind": record.get("end_date_kind"),
        "governing_law": record.get("governing_law"),
        "amends": record.get("amends", []),
        "amended_by": record.get("amended_by", []),
        "warnings": record.get("warnings", []),
    }


def _articles(
    book: SourceBook, record: dict[str, Any], items: list[dict[str, Any]], key: str, chars: int
) -> list[dict[str, Any]]:
    shown: list[dict[str, Any]] = []
    for item in items:
        n = book.article(record["contract_id"], record["title"], item)
        if n is None:
            shown.append({"n": None, "note": "not numbered: too many sources already"})
            continue
        page = item.get("page", item.get("page_start"))
        shown.append(
            {
                "n": n,
                "chunk_id": item["chunk_id"],
                "heading": item.get("heading"),
                "page": page,
                key: str(item.get(key) or "")[:chars],
            }
        )
    return shown


def search_view(book: SourceBook, result: dict[str, Any], *, exhaustive: bool) -> dict[str, Any]:
    contracts = []
    for hit in result["results"]:
        view = _contract_view(book, hit)
        view["matched_filters"] = hit.get("matched_filters", [])
        view["articles"] = _articles(
            book, hit, hit.get("relevant_articles", []), "excerpt", EXCERPT_CHARS
        )
        contracts.append(view)
    unknown = {
        item["contract_id"]: "; ".join(f"{k}: {v}" for k, v in item["reasons"].items())
        or ", ".join(item["unknown_fields"])
        for item in result["excluded_unknown"]
    }
    if exhaustive:
        titles = {hit["contract_id"]: hit["title"] for hit in result["results"]}
        titles.update({item["contract_id"]: item["title"] for item in result["excluded_unknown"]})
        book.listings.append(
            Listing(
                [hit["contract_id"] for hit in result["results"]],
                unknown,
                dict(result["excluded_by_amendment"]),
                titles,
            )
        )
    return {
        "exhaustive": exhaustive,
        "total_results": result["total_results"],
        "contracts": contracts,
        "excluded_unknown": unknown,
        "excluded_by_amendment": result["excluded_by_amendment"],
        "next_offset": result.get("next_offset"),
    }


def contract_view(book: SourceBook, result: dict[str, Any]) -> dict[str, Any]:
    view = _contract_view(book, result)
    view["articles"] = _articles(book, result, result.get("articles", []), "text", ARTICLE_CHARS)
    view["articles_total"] = result.get("articles_total")
    view["next_cursor"] = result.get("next_cursor")
    return view


def duplicates_view(book: SourceBook, result: dict[str, Any]) -> dict[str, Any]:
    groups = [
        {
            "kind": group["kind"],
            "reason": group["reason"],
            "score": group["score"],
            "contracts": [
                {"n": book.contract(c["contract_id"], c["title"]), **c} for c in group["contracts"]
            ],
        }
        for group in result["groups"]
    ]
    return {"groups": groups, "total_groups": result["total_groups"]}


def _folded(text: str) -> str:
    return "".join(
        c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf"
    )


def _defused(value: Any) -> Any:
    """``value``'s strings with any delimiter inside defused, a lookalike one too (such a
    string is given in its NFKC form, without invisible characters). Done before the JSON
    is written: a form folded to a quotation mark is then escaped as one."""
    if isinstance(value, str):
        if _DELIMITER.search(value) or _DELIMITER.search(_folded(value)):
            return _DELIMITER.sub(r"[\1\2]", _folded(value))
        return value
    if isinstance(value, dict):
        return {_defused(key): _defused(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_defused(item) for item in value]
    return value


def quoted(name: str, text: str) -> str:
    """``text`` between the delimiters the system prompt calls data (``name`` says what)."""
    text = _DELIMITER.sub(r"[\1\2]", text)
    return f'<tool_result name="{_TOOL_NAME.sub("_", name)[:80]}">\n{text}\n</tool_result>'


def tool_message(name: str, view: dict[str, Any]) -> str:
    """The tool result as the model reads it: JSON between delimiters, any delimiter inside
    defused, cut at ``MAX_RESULT_CHARS`` (the model is told it was cut)."""
    text = json.dumps(_defused(view), ensure_ascii=False, default=str)
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + " …[cut: ask for fewer results or one contract]"
    return quoted(name, text)


def source_list(book: SourceBook) -> str:
    """The numbered sources for the draft: titles and headings are the documents' own
    words, so they come as data, between the delimiters, like any tool result."""
    return quoted("sources", str(_defused(book.numbered())))
