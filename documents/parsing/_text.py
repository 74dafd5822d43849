"""Plain text and Markdown: pages at form feeds, as plain-text exports mark them."""

from __future__ import annotations

from collections.abc import Callable

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from documents.parsing._bounds import Meter
from documents.parsing._formats import (
    Format,
    ParsedText,
    ParseError,
    decoded,
    format_named,
    join_pages,
    normalise,
    register_format,
)
from documents.parsing._running import without_running_lines


def _parse_plain(filename: str, text: str, media_type: str, meter: Meter) -> ParsedText:
    # Measured before the pages are cleaned up one by one.
    meter.progress(chars=len(text))
    # Form feeds are how plain-text exports (and pdftotext) mark page boundaries.
    meter.declare_pages(text.count("\f") + 1)
    pages = [normalise(page) for page in text.replace("\r\n", "\n").split("\f")]
    if not any(page.strip() for page in pages):
        message = gettext("%(file)s: the file contains no text")
        raise ParseError("empty", message % {"file": filename})
    # A text export with form feeds (pdftotext) carries the PDF's running lines too.
    return join_pages(without_running_lines(pages), media_type)


def _parser(media_type: str) -> Callable[[str, bytes, Meter], ParsedText]:
    def parse(filename: str, data: bytes, meter: Meter) -> ParsedText:
        text = decoded(filename, data, format_named(media_type))
        return _parse_plain(filename, text, media_type, meter)

    return parse


register_format(
    Format(name="txt", extensions=(".txt",), label=_("text"), content="text", cp1252=True,
           parse=_parser("txt"))
)  # fmt: skip
register_format(
    Format(name="md", extensions=(".md",), label="Markdown", content="text", cp1252=True,
           parse=_parser("md"))
)  # fmt: skip
