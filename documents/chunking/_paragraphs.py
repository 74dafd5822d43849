"""A contract without headings: its paragraphs are its clauses.

Joint filing agreements, one-page letters and short schedules are written as plain
paragraphs. Read as one "preamble", a citation can only point at the whole document; cut at
its paragraphs, a citation points at the paragraph ("¶ 2"). Only a paragraph that reads as a
clause opens one (prose of some length, not a signature or notice block): a title, a date
line or a signatory's name stays with the text around it.

Chosen on CUAD's contracts without any heading: a clause paragraph is at least 120
characters and 15 words, a third of them or more starting in lower case (a block of names in
capitals and "By: /s/ ..." lines has few).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from documents.chunking._headings import Heading
from documents.chunking._titles import reads_like_sentence, starts_like_title

# Shorter than this, a text is read whole: a one-paragraph letter needs no "¶ 1".
_MIN_TEXT_CHARS = 600
_MIN_PARAGRAPH_CHARS = 120
_MIN_PARAGRAPH_WORDS = 15
_MIN_LOWER_SHARE = 0.33
_TITLE_MAX_CHARS = 80
_UNNUMBERED = frozenset({"caps", "label"})
_BLOCK_BREAK_RE = re.compile(r"\n[ \t]*\n\s*")
_LINE_BREAK_RE = re.compile(r"\n\s*")
_SENTENCE_ENDS = frozenset('.;:!?)"\u201d')
_WORD_RE = re.compile(r"[^\W\d_][\w'\u2019-]*")
# A signature, a notice address or a cover line, written as a paragraph.
_NOT_CLAUSE_RE = re.compile(
    r"^(?:(?:by|name|title|date|dated|attn|attention|address|signature|signed|source)\b|/s/)",
    re.IGNORECASE,
)


def default_label(number: int) -> str:
    return f"\u00b6 {number}"


def _reads_as_clause(block: str) -> bool:
    words = _WORD_RE.findall(block)
    if len(block) < _MIN_PARAGRAPH_CHARS or len(words) < _MIN_PARAGRAPH_WORDS:
        return False
    if _NOT_CLAUSE_RE.match(block):
        return False
    lower = sum(1 for word in words if word[0].islower())
    return lower / len(words) >= _MIN_LOWER_SHARE


def _is_title(text: str, block: tuple[int, int]) -> bool:
    line = text[block[0] : block[1]]
    return (
        len(line) <= _TITLE_MAX_CHARS
        and "\n" not in line
        and starts_like_title(line)
        and not line.endswith((".", ",", ";", ":"))
        and not reads_like_sentence(line)
    )


def _split_at(text: str, end: int, breaks: re.Pattern[str]) -> list[tuple[int, int]]:
    """(start, end) of the pieces of ``text[:end]`` between ``breaks``, trimmed."""
    found: list[tuple[int, int]] = []
    start = 0
    for match in [*breaks.finditer(text, 0, end), None]:
        stop = end if match is None else match.start()
        block = text[start:stop]
        if block.strip():
            lead = len(block) - len(block.lstrip())
            found.append((start + lead, start + len(block.rstrip())))
        start = end if match is None else match.end()
    return found


def _blocks(text: str, end: int) -> list[tuple[int, int]]:
    """The paragraphs of ``text[:end]``: its blocks between blank lines. A text without blank
    lines whose long lines ending a sentence hold most of it was written one paragraph a
    line (a DOCX, a web page); a PDF's lines, wrapped at the page's width, do not."""
    blocks = _split_at(text, end, _BLOCK_BREAK_RE)
    if len(blocks) > 1:
        return blocks
    lines = _split_at(text, end, _LINE_BREAK_RE)
    in_long_lines = sum(
        stop - start
        for start, stop in lines
        if stop - start >= _MIN_PARAGRAPH_CHARS and text[stop - 1] in _SENTENCE_ENDS
    )
    return lines if in_long_lines * 2 >= len(text[:end].strip()) else blocks


def paragraph_articles(
    text: str, end: int, label: Callable[[int], str] = default_label
) -> list[Heading]:
    """The clause paragraphs of ``text[:end]`` as articles "¶ 1", "¶ 2"…; none when the text
    is too short or holds a single paragraph with nothing before it (no cut would help)."""
    if len(text[:end].strip()) < _MIN_TEXT_CHARS:
        return []
    blocks = _blocks(text, end)
    clauses = [i for i, (start, stop) in enumerate(blocks) if _reads_as_clause(text[start:stop])]
    clause_set = set(clauses)
    if not clauses or (len(clauses) == 1 and clauses[0] == 0):
        return []
    # A title alone above a later paragraph ("Capital Contributions") opens it; above the
    # first, it is the document's title and stays in the preamble.
    titled = {i for i in clauses[1:] if i - 1 not in clause_set and _is_title(text, blocks[i - 1])}
    starts = [blocks[clauses[0]][0]] + [blocks[i - (i in titled)][0] for i in clauses[1:]]
    return [
        Heading(start, label(number), "", "paragraph", 1, text.count("\n", 0, start), False)
        for number, start in enumerate(starts, start=1)
    ]


def with_paragraphs(
    text: str, top: list[Heading], label: Callable[[int], str] = default_label
) -> list[Heading]:
    """``top`` as found, or the paragraphs when nothing better exists: no article, or a single
    unnumbered line (a signatory's name in capitals is not a structure). Exhibits and
    schedules found keep their chunk; the paragraphs are read before the first of them."""
    articles = [heading for heading in top if heading.style != "annex"]
    if len(articles) > 1 or (articles and articles[0].style not in _UNNUMBERED):
        return top
    annexes = [heading for heading in top if heading.style == "annex"]
    end = annexes[0].line_start if annexes else len(text)
    paragraphs = paragraph_articles(text, end, label)
    return [*paragraphs, *annexes] if paragraphs else top
