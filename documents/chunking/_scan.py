"""Finding the candidate headings of a text: at line starts, and inside long lines.

Contracts filed with the SEC often reach us with a whole page on one line ("... as
follows: 1. Services. 1.1 Provision of Services. (a) Provider agrees ..."): in a long line,
an opening that follows the end of a sentence or a wide gap is read like a line start.
Cross-references ("pursuant to Section 3.2") follow a word, not a sentence end, and stay text.
"""

from __future__ import annotations

import re

from documents.chunking._headings import Heading, heading_at, line_heading, without_lists

# A line this long holds several paragraphs: look for headings inside it too.
_LONG_LINE = 200
_INLINE_START_RE = re.compile(
    r"(?:(?<=[.;:!?)\]\"”*])[ \t]+|[ \t]{2,})"
    r"(?=(?:ARTICLE|Article|SECTION|Section|EXHIBIT|Exhibit|SCHEDULE|Schedule|ANNEX|Annex)"
    r"[ \t]|\d{1,3}(?:\.\d{1,3}){0,2}\.?[ \t]+[A-Z\"“(]|\d{1,3}\.[A-Z]|[IVX]{1,5}\.[ \t]+[A-Z]"
    r"|[A-Z][\w'\u2019&/-]*(?:[ \t]+[\w'\u2019&/-]+){0,3}[ \t]+\d{1,3}\.[ \t]+[A-Z\"“(])"
)
# An inline opening must say more than a number: the keyword styles, or a title.
_INLINE_STYLES = frozenset({"article", "section", "annex", "numbered", "roman"})
# Words that open a signature block, a recital or a cover line, not an article.
_NOT_CAPS_HEADINGS = frozenset({
    "WITNESSETH", "RECITALS", "WHEREAS", "BETWEEN", "AND", "BY", "NAME", "TITLE", "DATE",
    "SIGNATURE", "SIGNATURES", "SIGNED", "ADDRESS", "ATTENTION", "TEL", "FAX", "EMAIL", "PER",
    "ENTRE", "LES", "SOUSSIGNÉS", "IL", "ÉTÉ", "CONVENU", "CE", "QUI", "SUIT", "NOTE", "PAGE",
    "EXECUTION", "VERSION", "CONFIDENTIAL", "CONFIDENTIEL", "DRAFT", "COPY", "FAIT", "LE",
    "AGREEMENT", "CONTRACT", "CONTRAT", "CONVENTION", "BAIL", "AVENANT", "AMENDMENT", "LICENSE",
    "INC", "LLC", "LTD", "CORP", "CORPORATION", "COMPANY", "SA", "SAS", "SARL", "LP", "PLC",
})  # fmt: skip


def _ends_a_sentence(line: str) -> bool:
    stripped = line.rstrip()
    return not stripped or stripped[-1] in '.:;!?)»"”' or len(stripped) <= 60


def _caps_line_is_heading(lines: list[str], index: int, title: str) -> bool:
    """A line in capitals is a heading when it stands apart: after the end of a sentence or
    a blank line, and not followed by more capitals (a disclaimer wrapped over lines)."""
    words = set(re.findall(r"[^\W\d_]+", title.upper()))
    if words & _NOT_CAPS_HEADINGS or len(title) > 80:
        return False
    previous = next((line for line in reversed(lines[max(0, index - 2) : index]) if line), "")
    following = next((line.strip() for line in lines[index + 1 : index + 3] if line.strip()), "")
    if not _ends_a_sentence(previous) or not following:
        return False
    return not (following.isupper() and len(following) > 60)


def _line_candidates(lines: list[str], index: int, line_start: int) -> list[Heading]:
    raw = lines[index]
    line = raw.strip().lstrip("#").strip()
    if not line:
        return []
    found = line_heading(line, lines[index + 1 : index + 4])
    if found is not None and found[2] == "caps" and not _caps_line_is_heading(lines, index, line):
        found = None
    headings = [] if found is None else [heading_at(raw, line_start, index, found)]
    if len(raw) >= _LONG_LINE:
        headings.extend(_inline_candidates(raw, line_start, index, skip=bool(headings)))
    return headings


def _inline_candidates(raw: str, line_start: int, index: int, *, skip: bool) -> list[Heading]:
    """Headings inside a long line, each starting where its number does."""
    found: list[Heading] = []
    for match in _INLINE_START_RE.finditer(raw):
        start = match.end()
        if skip and not raw[:start].strip():
            continue  # the line's own start, already read
        tail = raw[start:]
        opening = line_heading(tail, [])
        if opening is None or opening[2] not in _INLINE_STYLES:
            continue
        heading, ref, style, _bare, titled = opening
        found.append(
            heading_at(raw, line_start + start, index, (heading, ref, style, False, titled))
        )
    return found


def candidate_headings(text: str) -> list[Heading]:
    """Every opening that looks like a heading, whatever its level, in text order."""
    headings: list[Heading] = []
    lines = text.split("\n")
    offset = 0
    for index, raw_line in enumerate(lines):
        line_start, offset = offset, offset + len(raw_line) + 1
        headings.extend(_line_candidates(lines, index, line_start))
    return without_lists(headings)
