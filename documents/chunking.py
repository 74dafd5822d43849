"""Cut a contract's text into retrieval chunks along its articles.

An article is the unit a lawyer cites ("article 8"), so it is the unit we store: one chunk
per top-level heading, the text before the first heading as a preamble, and only articles
longer than `max_chars` cut further (at sub-sections, then paragraphs, lines, sentences).
Pure functions: no models, no settings.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass


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


@dataclass(frozen=True)
class _Heading:
    line_start: int  # offset of the heading line, leading indentation included
    text: str
    ref: str
    style: str  # "article" | "section" | "numbered", from most to least trustworthy
    level: int  # 1 for "12", 2 for "12.3", ...
    line_index: int
    bare: bool  # a numbered title alone on its line, no clause text after it


_STYLE_PRIORITY = ("article", "section", "numbered")
_HEADING_MAX_CHARS = 120
_TITLE_MAX_WORDS = 10

_ROMAN_RE = re.compile(r"^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
_FIRST = frozenset({"1er", "1re", "1ère", "premier", "première", "first"})
_NUMBER = r"\d{1,3}(?:\.\d{1,3})*"
# Dashes spelled as escapes: em, en and hyphen all separate a number from its title.
_DASHES = "\u2014\u2013-"
_AFTER_NUMBER = rf"(?=$|[\s.:){_DASHES}])"
# Roman numerals only in capitals, or "Article ci-après" would be article 101.
_KEYWORD_RE = re.compile(
    rf"^(?P<keyword>article|art\.|section|sect\.|clause)[ \t]*"
    rf"(?P<number>1er|1re|1ère|premier|première|first|{_NUMBER}|(?-i:[IVXLC]+)){_AFTER_NUMBER}"
    r"(?P<rest>.*)$",
    re.IGNORECASE,
)
# Bare roman numbers stop at XXXIX: "C." and "L." are far more often list letters.
_NUMBERED_RE = re.compile(
    rf"^(?P<number>{_NUMBER}|[IVX]+)(?P<dot>\.?)[ \t]+(?P<rest>\S.*)$",
)
_OPENING_QUOTES = "\u00ab\"\u201c'\u2018[( "
_SEPARATORS = f" \t{_DASHES}:.)"
_DASH_OR_COLON = frozenset(f"{_DASHES}:")
# A title ends at the first full stop or colon; what follows on the line is the body.
_INLINE_TITLE_RE = re.compile(r"^(?P<title>[^.:!?]{1,80}?)[.:](?:\s+(?P<body>\S.*))?$")
# Table-of-contents lines end with a page number after dot leaders or a wide gap.
_TOC_RE = re.compile(r"(?:\.{3,}|…|\s{2,}|\t)\s*\d{1,4}$")
_MINOR_WORDS = frozenset({
    "a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "the",
    "to", "with", "à", "au", "aux", "d", "de", "des", "du", "en", "et", "l", "la", "le", "les",
    "par", "pour", "sur", "un", "une",
})  # fmt: skip
# Words that make a short sentence-case line a sentence rather than a French-style title.
_SENTENCE_WORDS = frozenset({
    "shall", "will", "must", "may", "agree", "agrees", "is", "are", "be", "has", "have", "that",
    "which", "est", "sont", "sera", "seront", "doit", "doivent", "peut", "peuvent", "que", "qui",
    "engage",
})  # fmt: skip

_PARAGRAPH_BREAK_RE = re.compile(r"\n[ \t]*\n\s*")
_LINE_BREAK_RE = re.compile(r"\n\s*")
_SENTENCE_END_RE = re.compile(r"(?<=[.!?;:])\s+")
_SPACE_RE = re.compile(r"\s+")
_SPLIT_LEVELS = (_PARAGRAPH_BREAK_RE, _LINE_BREAK_RE, _SENTENCE_END_RE, _SPACE_RE)


def _roman_to_int(numeral: str) -> int | None:
    if not numeral or not _ROMAN_RE.match(numeral):
        return None
    total = 0
    for current, following in zip(numeral, [*numeral[1:], ""], strict=True):
        value = _ROMAN_VALUES[current]
        total += -value if following and _ROMAN_VALUES[following] > value else value
    return total


def _normalise_ref(number: str) -> str | None:
    """ "04" -> "4", "2.03" -> "2.3", "1er" -> "1", "IV" -> "4"; None if not a number."""
    if number.lower() in _FIRST:
        return "1"
    if number[0].isdigit():
        parts = [str(int(part)) for part in number.split(".")]
        while len(parts) > 1 and parts[-1] == "0":  # "9.0 Warranties" is article 9
            parts.pop()
        return ".".join(parts)
    value = _roman_to_int(number)
    return None if value is None else str(value)


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W\d_][\w'\u2019-]*", text)


def _is_title_case(title: str) -> bool:
    significant = [word for word in _words(title) if word.lower() not in _MINOR_WORDS]
    if not significant:
        return False
    capitalised = sum(1 for word in significant if word[0].isupper())
    return capitalised / len(significant) >= 0.6


def _starts_like_title(title: str) -> bool:
    first = title.lstrip(_OPENING_QUOTES)[:1]
    return first.isalpha() and first.isupper()


def _title_of(rest: str) -> tuple[str, bool] | None:
    """(title, has_body) after a heading number; None when the rest reads like a sentence.

    "Governing Law", "Durée du contrat" and "Services. The Consultant shall ..." have
    titles; "The parties agree that ..." does not.
    """
    rest = rest.strip()
    if not _starts_like_title(rest) or _TOC_RE.search(rest):
        return None
    inline = _INLINE_TITLE_RE.match(rest)
    if inline is not None and inline.group("body"):
        # "Services. The Consultant shall ...": the clause starts on the heading's line.
        title = inline.group("title").strip()
        if len(title.split()) <= _TITLE_MAX_WORDS and (title.isupper() or _is_title_case(title)):
            return title, True
        return None
    if len(rest) > 80 or len(rest.split()) > 8 or rest.endswith((",", ";")):
        return None
    # A short line standing alone; French titles are in sentence case, so accept that too
    # unless it reads like a sentence.
    if rest.isupper() or _is_title_case(rest):
        return rest.rstrip(" .:"), False
    if rest.endswith(".") or _reads_like_sentence(rest):
        return None
    return rest.rstrip(" .:"), False


def _reads_like_sentence(text: str) -> bool:
    # Split at apostrophes too, so that "s'engage" is seen as "engage".
    return any(word.lower() in _SENTENCE_WORDS for word in re.findall(r"[^\W\d_]+", text))


def _keyword_heading(line: str) -> tuple[str, str, str, bool] | None:
    """(heading, ref, style, has_title) for "ARTICLE 4 — EXCLUSIVITÉ", "Art. 5", "Section 2.3"."""
    match = _KEYWORD_RE.match(line)
    ref = None if match is None else _normalise_ref(match.group("number"))
    if match is None or ref is None:
        return None
    style = "article" if match.group("keyword").lower().startswith("art") else "section"
    rest = match.group("rest")
    title = rest.lstrip(_SEPARATORS)
    if not title:
        return line.rstrip(f" .:{_DASHES}"), ref, style, False
    separated = bool(_DASH_OR_COLON & set(rest[: len(rest) - len(title)]))
    # "Article 5 of the Agreement shall ..." is a sentence; "Article 4 - durée" is a heading.
    if _TOC_RE.search(title) or not (separated or _starts_like_title(title)):
        return None
    if len(line) <= _HEADING_MAX_CHARS:
        return line.rstrip(" .:"), ref, style, True
    inline = _INLINE_TITLE_RE.match(title)
    if inline is None:
        return None
    head = line[: len(line) - len(title)]
    return f"{head}{inline.group('title')}".strip(), ref, style, True


def _numbered_heading(line: str) -> tuple[str, str, bool] | None:
    """(heading, ref, has_body) for "12. Governing Law", "12.3 Notices", "1. Services. The"."""
    match = _NUMBERED_RE.match(line)
    if match is None:
        return None
    number, dot = match.group("number"), match.group("dot")
    # A bare "12 Something" is too often a quantity, and a bare "I" a pronoun.
    if not dot and (number.isalpha() or "." not in number):
        return None
    ref = _normalise_ref(number)
    titled = _title_of(match.group("rest"))
    if ref is None or titled is None:
        return None
    return f"{number}{dot} {titled[0]}", ref, titled[1]


def _with_title_from_next_line(heading: str, following: list[str]) -> str:
    """ "ARTICLE 4" with "EXCLUSIVITÉ" alone on the next line reads "ARTICLE 4 — EXCLUSIVITÉ"."""
    candidate = next((line.strip() for line in following if line.strip()), "")
    if (
        0 < len(candidate) <= 80
        and _starts_like_title(candidate)
        and not candidate.endswith((".", ",", ";"))
        and not _reads_like_sentence(candidate)
        and _keyword_heading(candidate) is None
        and _numbered_heading(candidate) is None
    ):
        return f"{heading} — {candidate}"
    return heading


def _candidate_headings(text: str) -> list[_Heading]:
    """Every line that looks like a heading, whatever its level."""
    headings: list[_Heading] = []
    lines = text.split("\n")
    offset = 0
    for index, raw_line in enumerate(lines):
        line_start, offset = offset, offset + len(raw_line) + 1
        line = raw_line.strip().lstrip("#").strip()
        keyword = _keyword_heading(line) if line else None
        numbered = _numbered_heading(line) if line and keyword is None else None
        bare = False
        if keyword is not None:
            heading, ref, style, has_title = keyword
            if not has_title:
                heading = _with_title_from_next_line(heading, lines[index + 1 : index + 4])
        elif numbered is not None:
            heading, ref, has_body = numbered
            style, bare = "numbered", not has_body
        else:
            continue
        level = ref.count(".") + 1
        headings.append(
            _Heading(line_start, " ".join(heading.split()), ref, style, level, index, bare)
        )
    return _without_lists(headings)


def _without_lists(headings: list[_Heading]) -> list[_Heading]:
    """Drop short numbered lines that sit on consecutive lines: "1. Hardware\n2. Software".

    A heading is followed by its clause; a list item by the next item.
    """
    bare_lines = {(h.line_index, h.level) for h in headings if h.bare}
    return [
        h
        for h in headings
        if not h.bare or not {(h.line_index - 1, h.level), (h.line_index + 1, h.level)} & bare_lines
    ]


def _ref_key(ref: str) -> tuple[int, ...]:
    return tuple(int(part) for part in ref.split("."))


def _top_level(headings: list[_Heading]) -> list[_Heading]:
    """The headings that start chunks.

    The most explicit style wins ("ARTICLE 4" over "Section 4.1" over "4.1"); a style needs
    two headings to win so that one stray line cannot take over. Within it, the shallowest
    level is top-level; deeper ones stay inside their article. Bare numbers must increase,
    so that a numbered list inside an article ("1. Price", "2. Delivery") starts no chunk.
    """
    by_style = {style: [h for h in headings if h.style == style] for style in _STYLE_PRIORITY}
    chosen = next((s for s in _STYLE_PRIORITY if len(by_style[s]) >= 2), None)
    chosen = chosen or next((s for s in _STYLE_PRIORITY if by_style[s]), None)
    if chosen is None:
        return []
    level = min(h.level for h in by_style[chosen])
    top = [h for h in by_style[chosen] if h.level == level]
    if chosen != "numbered":
        return top
    increasing: list[_Heading] = []
    for heading in top:
        if not increasing or _ref_key(heading.ref) > _ref_key(increasing[-1].ref):
            increasing.append(heading)
    return increasing


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


def _page_of(page_starts: list[int], offset: int) -> int:
    return max(1, bisect_right(page_starts, offset))


def split_into_chunks(
    text: str, page_starts: list[int], *, max_chars: int = 2400, overlap_chars: int = 200
) -> list[ChunkDraft]:
    """Cut a document's text into chunks: a preamble, then one chunk per top-level article.

    An article longer than `max_chars` becomes several `kind="part"` chunks, cut at its
    sub-sections first, then at paragraphs, lines and sentences; pieces not cut at a
    sub-heading repeat the last `overlap_chars` characters of the previous piece. Without
    any heading the whole text is cut that way. Every non-blank character lands in a chunk.
    """
    if max_chars <= 0 or not 0 <= overlap_chars < max_chars:
        raise ValueError("need max_chars > 0 and 0 <= overlap_chars < max_chars")
    if not text.strip():
        return []
    candidates = _candidate_headings(text)
    top = _top_level(candidates)
    top_starts = {heading.line_start for heading in top}
    heading_cuts = sorted({h.line_start for h in candidates} - top_starts)
    heading_cut_set = set(heading_cuts)
    sections: list[tuple[int, int, str, str, str]] = []  # start, end, kind, heading, ref
    if not top:
        sections.append((0, len(text), "part", "", ""))
    else:
        sections.append((0, top[0].line_start, "preamble", "", ""))
        ends = [heading.line_start for heading in top[1:]] + [len(text)]
        sections += [
            (h.line_start, end, "article", h.text, h.ref) for h, end in zip(top, ends, strict=True)
        ]

    budget = max_chars - overlap_chars
    drafts: list[ChunkDraft] = []
    for raw_start, raw_end, kind, heading, ref in sections:
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
                    page_start=_page_of(page_starts, chunk_start),
                    page_end=_page_of(page_starts, chunk_end - 1),
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
