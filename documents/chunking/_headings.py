"""Headings: the lines that open an article ("ARTICLE 4 — DURÉE", "Section 4.1", "4. Prix"),
and which of them are top-level, each starting a chunk."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Heading:
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


def candidate_headings(text: str) -> list[Heading]:
    """Every line that looks like a heading, whatever its level."""
    headings: list[Heading] = []
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
            Heading(line_start, " ".join(heading.split()), ref, style, level, index, bare)
        )
    return _without_lists(headings)


def _without_lists(headings: list[Heading]) -> list[Heading]:
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


def top_level(headings: list[Heading]) -> list[Heading]:
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
    increasing: list[Heading] = []
    for heading in top:
        if not increasing or _ref_key(heading.ref) > _ref_key(increasing[-1].ref):
            increasing.append(heading)
    return increasing
