"""Cutting the text: one chunk per top-level article, long ones packed at sub-sections,
paragraphs, lines and sentences; and the context each chunk is indexed with."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass

from documents.chunking._headings import Heading
from documents.chunking._levels import top_level
from documents.chunking._paragraphs import default_label, with_paragraphs
from documents.chunking._scan import candidate_headings


@dataclass(frozen=True)
class ChunkDraft:
    ordinal: int
    kind: str
    heading: str
    article_ref: str
    text: str
    char_start: int
    char_end: int
    page_start: int
    page_end: int


_PARAGRAPH_BREAK_RE = re.compile(r"\n[ \t]*\n\s*")
_LINE_BREAK_RE = re.compile(r"\n\s*")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?;:])\s+")
_SPACE_RE = re.compile(r"\s+")
_SPLIT_LEVELS = (_PARAGRAPH_BREAK_RE, _LINE_BREAK_RE, _SENTENCE_END_RE, _SPACE_RE)


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _cuts(text: str, start: int, end: int, level: int, heading_cuts: list[int]) -> list[int]:
    if level == 0:
        return [cut for cut in heading_cuts if start < cut < end]
    pattern = _SPLIT_LEVELS[level - 1]
    return [m.end() for m in pattern.finditer(text, start, end) if start < m.end() < end]


def _pack(
    text: str, start: int, end: int, budget: int, heading_cuts: list[int], level: int = 0
) -> list[tuple[int, int]]:
    """Split [start, end) into contiguous pieces of at most `budget` characters.

    Cut at the coarsest boundary that works (sub-headings, blank lines, lines, sentences,
    spaces), merging neighbours greedily; only a segment too big on its own goes finer.
    """
    if end - start <= budget:
        return [(start, end)]
    if level > len(_SPLIT_LEVELS):
        # One unbroken run of characters: a hard cut is the only option left.
        return [(cut, min(cut + budget, end)) for cut in range(start, end, budget)]
    cuts = _cuts(text, start, end, level, heading_cuts)
    if not cuts:
        return _pack(text, start, end, budget, heading_cuts, level + 1)
    pieces: list[tuple[int, int]] = []
    open_start = open_end = start
    for seg_start, seg_end in zip([start, *cuts], [*cuts, end], strict=True):
        if seg_end - seg_start > budget:
            if open_end > open_start:
                pieces.append((open_start, open_end))
            pieces.extend(_pack(text, seg_start, seg_end, budget, heading_cuts, level + 1))
            open_start = open_end = seg_end
            continue
        if seg_end - open_start > budget:
            pieces.append((open_start, open_end))
            open_start = seg_start
        open_end = seg_end
    if open_end > open_start:
        pieces.append((open_start, open_end))
    return pieces


def _with_overlap(text: str, piece_start: int, floor: int, overlap: int) -> int:
    """Move a piece's start back by up to `overlap` characters, to the start of a word."""
    start = max(floor, piece_start - overlap)
    if start > 0 and not text[start - 1].isspace():
        gap = re.search(r"\s", text[start:piece_start])
        if gap is None:
            return piece_start
        start += gap.start()
    return _trim(text, start, piece_start)[0] if start < piece_start else piece_start


def page_of(page_starts: list[int], offset: int) -> int:
    """The page (from 1) holding the character at ``offset``."""
    return max(1, bisect_right(page_starts, offset))


def _sections(text: str, top: list[Heading]) -> list[tuple[int, int, str, str, str]]:
    """(start, end, kind, heading, ref) of the preamble and each top-level article."""
    if not top:
        return [(0, len(text), "part", "", "")]
    ends = [heading.line_start for heading in top[1:]] + [len(text)]
    return [(0, top[0].line_start, "preamble", "", "")] + [
        (h.line_start, end, "article", h.text, h.ref) for h, end in zip(top, ends, strict=True)
    ]


def given_sections(
    text: str, sections: list[tuple[int, str, str]]
) -> list[tuple[int, int, str, str, str]]:
    """Sections the document declares itself, as (start, heading, ref): a saved court
    decision's visas, points and dispositif. The text before the first is the preamble."""
    starts = sorted(s for s in sections if 0 <= s[0] < len(text))
    if not starts:
        return [(0, len(text), "part", "", "")]
    ends = [start for start, _heading, _ref in starts[1:]] + [len(text)]
    return [(0, starts[0][0], "preamble", "", "")] + [
        (start, end, "article", heading, ref)
        for (start, heading, ref), end in zip(starts, ends, strict=True)
    ]


def _parts(
    text: str,
    sections: list[tuple[int, str, str]] | None,
    paragraph_label: Callable[[int], str],
) -> tuple[list[tuple[int, int, str, str, str]], list[int]]:
    """The sections (start, end, kind, heading, ref): the given ones, else the detected
    articles (or paragraphs); and the starts of the sub-headings an article may be cut at."""
    candidates = candidate_headings(text)
    top = [] if sections is not None else top_level(candidates, len(text))
    if sections is None:
        top = with_paragraphs(text, top, paragraph_label)
    top_starts = {heading.line_start for heading in top}
    heading_cuts = sorted({h.line_start for h in candidates} - top_starts)
    parts = _sections(text, top) if sections is None else given_sections(text, sections)
    return parts, heading_cuts


def split_into_chunks(
    text: str,
    page_starts: list[int],
    *,
    max_chars: int = 2400,
    overlap_chars: int = 200,
    sections: list[tuple[int, str, str]] | None = None,
    paragraph_label: Callable[[int], str] = default_label,
) -> list[ChunkDraft]:
    """Cut a document's text into chunks: a preamble, then one chunk per top-level article.

    An article longer than `max_chars` becomes several `kind="part"` chunks, cut at its
    sub-sections first, then at paragraphs, lines and sentences; pieces not cut at a
    sub-heading repeat the last `overlap_chars` characters of the previous piece. Without
    any heading, a text of several paragraphs is cut at them, each headed
    ``paragraph_label(n)`` ("¶ 1"), and a short one is cut as one long article would be.
    Every non-blank character lands in a chunk. ``sections`` (start, heading, ref), when
    given, replace the detected articles.
    """
    if max_chars <= 0 or not 0 <= overlap_chars < max_chars:
        raise ValueError("need max_chars > 0 and 0 <= overlap_chars < max_chars")
    if not text.strip():
        return []
    parts, heading_cuts = _parts(text, sections, paragraph_label)
    heading_cut_set = set(heading_cuts)
    budget = max_chars - overlap_chars
    drafts: list[ChunkDraft] = []
    for raw_start, raw_end, kind, heading, ref in parts:
        start, end = _trim(text, raw_start, raw_end)
        if start == end:
            continue
        pieces = [(start, end)]
        if end - start > max_chars:
            pieces = _pack(text, start, end, budget, heading_cuts)
            kind = "part" if kind == "article" else kind
        floor = start
        for piece_start, piece_end in pieces:
            chunk_start, chunk_end = _trim(text, piece_start, piece_end)
            if chunk_start == chunk_end:
                continue
            if chunk_start != start and piece_start not in heading_cut_set and overlap_chars:
                chunk_start = _with_overlap(text, chunk_start, floor, overlap_chars)
            floor = piece_start
            drafts.append(
                ChunkDraft(
                    ordinal=len(drafts),
                    kind=kind,
                    heading=heading,
                    article_ref=ref,
                    text=text[chunk_start:chunk_end],
                    char_start=chunk_start,
                    char_end=chunk_end,
                    page_start=page_of(page_starts, chunk_start),
                    page_end=page_of(page_starts, chunk_end - 1),
                )
            )
    return drafts


def index_text(chunk: ChunkDraft, *, title: str, parties: list[str], contract_type: str) -> str:
    """The text to embed and full-text index: document context lines, then the chunk.

    A chunk alone ("The term is five years.") does not say which contract it belongs to;
    prefixing title, type, parties and heading measurably improves retrieval.
    """
    context = " — ".join(part for part in (title.strip(), contract_type.strip()) if part)
    lines = [context] if context else []
    named = [party.strip() for party in parties if party.strip()]
    if named:
        lines.append("Parties: " + "; ".join(named))
    if chunk.heading and not chunk.text.startswith(chunk.heading):
        lines.append(chunk.heading)
    return "\n".join(lines) + ("\n\n" if lines else "") + chunk.text
