"""Légifrance's ``texteHtml`` to plain text: paragraphs kept, links reduced to their words."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

_BLOCK = frozenset({"p", "div", "br", "li", "tr", "table", "ul", "ol", "h1", "h2", "h3", "h4"})


class _TextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK:
            self.parts.append("\n")
        elif tag in {"td", "th"}:
            self.parts.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def html_to_text(markup: str) -> str:
    parser = _TextParser()
    parser.feed(markup or "")
    parser.close()
    text = html.unescape("".join(parser.parts)).replace("\xa0", " ")
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n\n".join(line for line in lines if line)).strip()
