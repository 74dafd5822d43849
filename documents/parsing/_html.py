"""HTML: the visible text, one line per block, table cells joined with " | "."""

from __future__ import annotations

from html.parser import HTMLParser

from django.utils.translation import gettext

from documents.parsing._bounds import Meter
from documents.parsing._formats import (
    HORIZONTAL_SPACE_RE,
    Format,
    ParsedText,
    ParseError,
    decoded,
    format_named,
    normalise,
    register_format,
)


class _HTMLTextExtractor(HTMLParser):
    _SKIP = frozenset({"script", "style", "head", "noscript", "template", "svg"})
    _PARAGRAPH = frozenset(
        {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "table",
         "ul", "ol", "blockquote", "pre", "header", "footer", "main", "aside", "nav",
         "form", "figure", "dl", "hr"}
    )  # fmt: skip
    _LINE = frozenset({"br", "li", "tr", "dt", "dd", "caption", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip_depth = 0
        self._cells_in_row = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._SKIP:
            self._skip_depth += 1
        elif tag in self._PARAGRAPH:
            self.parts.append("\n\n")
        elif tag in self._LINE:
            self.parts.append("\n")
            self._cells_in_row = 0
        elif tag in ("td", "th"):
            if self._cells_in_row:
                self.parts.append(" | ")
            self._cells_in_row += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # <br/> and <hr/> never get an end tag, and a void <script/> must not open a skip.
        if tag not in self._SKIP:
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._SKIP:
            self._skip_depth = max(0, self._skip_depth - 1)
        elif tag in self._PARAGRAPH:
            self.parts.append("\n\n")
        elif tag in self._LINE:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip_depth:
            # Source newlines are layout, not structure: only tags make lines.
            self.parts.append(data.replace("\n", " "))


# Fed slice by slice so the meter sees the visible text grow and the clock run.
_FEED_CHARS = 1 << 20


def _parse_html(filename: str, text: str, meter: Meter) -> ParsedText:
    extractor = _HTMLTextExtractor()
    counted = 0
    for start in range(0, len(text), _FEED_CHARS):
        extractor.feed(text[start : start + _FEED_CHARS])
        meter.progress(chars=sum(len(part) for part in extractor.parts[counted:]))
        counted = len(extractor.parts)
    extractor.close()
    lines = (
        HORIZONTAL_SPACE_RE.sub(" ", line).strip() for line in "".join(extractor.parts).split("\n")
    )
    body = normalise("\n".join(lines))
    if not body:
        message = gettext("%(file)s: the page contains no text")
        raise ParseError("empty", message % {"file": filename})
    return ParsedText(text=body, page_starts=[0], media_type="html")


def _parse(filename: str, data: bytes, meter: Meter) -> ParsedText:
    return _parse_html(filename, decoded(filename, data, format_named("html")), meter)


register_format(
    Format(name="html", extensions=(".html", ".htm"), label="HTML", content="text", cp1252=True,
           parse=_parse)
)  # fmt: skip
