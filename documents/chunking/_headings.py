"""Headings: the lines that open an article ("ARTICLE 4 — DURÉE", "Section 4.1", "4. Prix",
"1.DEFINITIONS", "Purpose 3. The", "IV. SUPPLY", "A. AUTHORITY", "GOVERNING LAW", "EXHIBIT
A", "Titre II"), and the same openings inside the long lines of texts whose pages were saved
one paragraph per page (``_scan``).

Which of them are top-level, each starting a chunk, is ``_levels``' choice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from documents.chunking._titles import (
    DASHES,
    SEPARATORS,
    body_is_toc,
    caps_heading,
    is_title_case,
    normalise_ref,
    reads_like_sentence,
    starts_like_title,
    title_of,
    title_split,
)


@dataclass(frozen=True)
class Heading:
    line_start: int  # offset where the heading starts (its line's indentation included)
    text: str
    ref: str
    # "article" | "section" | "numbered" | "division" (Titre, Chapitre) | "caps" (an
    # unnumbered heading in capitals) | "label" (an unnumbered run-in title: "Term: The")
    # | "annex" (Exhibit, Schedule, Annexe) | "lettered" ("A. AUTHORITY OF AGENCY")
    # | "roman" ("IV. SUPPLY", numbered like "numbered" but a run of its own)
    style: str
    level: int  # 1 for "12", 2 for "12.3", ...
    line_index: int
    bare: bool  # a title alone on its line, no clause text after it
    titled: bool = True  # False for a numbered paragraph that starts with its text


_HEADING_MAX_CHARS = 120
_NUMBER = r"\d{1,3}(?:\.\d{1,3})*"
_AFTER_NUMBER = rf"(?=$|[\s.:){DASHES}])"
# Roman numerals only in capitals, or "Article ci-après" would be article 101.
_KEYWORD_RE = re.compile(
    rf"^(?P<keyword>article|art\.|section|sect\.|clause|titre|chapitre|title|chapter|part)"
    rf"[ \t]*(?P<number>1er|1re|1ère|premier|première|first|{_NUMBER}|(?-i:[IVXLC]+))"
    rf"{_AFTER_NUMBER}(?P<rest>.*)$",
    re.IGNORECASE,
)
_DIVISIONS = frozenset({"titre", "chapitre", "title", "chapter", "part"})
# Bare roman numbers stop at XXXIX: "C." and "L." are far more often list letters.
# "1.DEFINITIONS", "5.Dolphin will": a number glued to its text, as some filings type them.
_NUMBERED_RE = re.compile(
    rf"^(?P<number>{_NUMBER}|[IVX]+)(?P<dot>[.)]?)(?:[ \t]+|(?<=\d\.)(?=[A-Z]))(?P<rest>\S.*)$",
)
# "A. AUTHORITY OF AGENCY": lettered articles (I, V and X are read as roman numbers).
_LETTERED_RE = re.compile(r"^(?P<letter>[A-HJ-UWYZ])[.)][ \t]+(?P<rest>\S.*)$")
# "EXHIBIT A", "Schedule 1", "ANNEXE 2 — Prix", "Appendix B: Fees", "ANNEXES".
_ANNEX_RE = re.compile(
    r"^(?P<keyword>(?i:exhibit|schedule|annexe?|appendix|attachment)s?)"
    r"(?:[ \t]+(?P<id>[\"“]?(?:[A-Z]{1,2}|\d{1,3}(?:\.\d{1,2})?|[IVX]{1,5})(?:-\d{1,2})?[\"”]?))?"
    rf"(?=$|[\s.:){DASHES}])(?P<rest>.*)$",
)
# "Purpose 3. The exclusive purpose ...": a marginal title written before its number.
_TITLE_NUMBER_RE = re.compile(
    r"^(?P<title>[A-Z][\w'\u2019&/-]*(?:[ \t]+[\w'\u2019&/-]+){0,3})"
    r"[ \t]+(?P<number>\d{1,3})\.[ \t]+(?P<rest>[A-Z\"\u201c(].*)$"
)
# Words that make "Section 3. The" or "Page 2. The" a reference, not a title.
_NOT_TITLE_WORDS = frozenset({
    "no", "page", "section", "article", "clause", "exhibit", "schedule", "annex", "item",
    "rule", "part", "paragraph", "appendix", "attachment", "chapter", "step", "phase", "version",
})  # fmt: skip
_DASH_OR_COLON = frozenset(f"{DASHES}:")
# A run-in title without a number: "Governing Law: This Agreement ...", "Confidentiality. Each".
_LABEL_RE = re.compile(
    r"^(?P<label>[A-Z][\w'\u2019&/-]*(?:[ \t][\w'\u2019&/-]+){0,5})"
    r"(?::(?:[ \t]+[A-Z(\"\u201c]|$)|\.[ \t]+[A-Z(\"\u201c])"
)
_LEGAL_FORMS = frozenset({
    "inc", "ltd", "llc", "corp", "corporation", "plc", "sa", "sas", "sarl", "gmbh", "ag", "bv",
    "nv", "lp", "llp", "co", "limited", "company",
})  # fmt: skip
# Labels of a notice, signature or cover block, not of a clause.
_NOT_LABELS = frozenset({
    "name", "title", "date", "by", "address", "attention", "attn", "tel", "telephone", "fax",
    "facsimile", "e-mail", "email", "phone", "party", "whereas", "note", "notes", "re", "to",
    "from", "cc", "signature", "signed", "contract", "account", "bank", "postcode", "website",
    "mr", "mrs", "ms", "dr", "inc", "ltd", "co", "corp", "no", "st", "its", "per", "witness",
    "company", "client", "customer", "supplier", "licensee", "licensor", "between", "and",
    "entre", "nom", "adresse", "fait", "le", "la", "les", "objet", "source", "page",
})  # fmt: skip
_QUOTES = '"\u201c\u201d'


def _keyword_heading(line: str) -> tuple[str, str, str, bool] | None:
    """(heading, ref, style, has_title) for "ARTICLE 4 — EXCLUSIVITÉ", "Art. 5", "Titre II"."""
    match = _KEYWORD_RE.match(line)
    ref = None if match is None else normalise_ref(match.group("number"))
    if match is None or ref is None:
        return None
    keyword = match.group("keyword").lower()
    style = "article" if keyword.startswith("art") else "section"
    style = "division" if keyword in _DIVISIONS else style
    rest = match.group("rest")
    title = rest.lstrip(SEPARATORS)
    if not title:
        return line.rstrip(f" .:{DASHES}"), ref, style, False
    separated = bool(_DASH_OR_COLON & set(rest[: len(rest) - len(title)]))
    # "Article 5 of the Agreement shall ..." is a sentence; "Article 4 - durée" is a heading.
    if not (separated or starts_like_title(title)):
        return None
    split = title_split(title)
    if split is None:
        if not separated or len(line) > _HEADING_MAX_CHARS:
            return None
        split = (title.rstrip(" .:"), "")
    if body_is_toc(split[1]):
        return None
    if style == "division" and split[1] and not separated:
        return None  # "Title II of the Act applies" is a sentence
    head = line[: len(line) - len(title)]
    return f"{head}{split[0]}".strip().rstrip(" .:"), ref, style, True


def _numbered_heading(line: str) -> tuple[str, str, bool, bool] | None:
    """(heading, ref, has_body, titled) for "12. Governing Law", "12.3 Notices", "1. Services.
    The Consultant shall", and "4.2 The Supplier shall ..." (a sub-section without a title)."""
    match = _NUMBERED_RE.match(line)
    if match is None:
        return None
    number, dot = match.group("number"), match.group("dot")
    # A bare "12 Something" is too often a quantity, and a bare "I" a pronoun.
    if not dot and (number.isalpha() or "." not in number):
        return None
    ref = normalise_ref(number)
    if ref is None:
        return None
    rest = match.group("rest")
    titled = title_of(rest)
    if titled is not None:
        return f"{number}{dot} {titled[0]}", ref, titled[1], True
    # A numbered paragraph without a title: "1. The Licensee shall ...", "4.2 Each Party ...".
    if starts_like_title(rest) and not body_is_toc(rest) and len(rest) > 20:
        return number.rstrip("."), ref, True, False
    return None


def _lettered_heading(line: str) -> tuple[str, str, bool] | None:
    """(heading, ref, has_body) for "A. AUTHORITY OF AGENCY" or "B. Fees. The Client";
    a lettered line without a title ("A. Owner operates ...") is a recital or a list item."""
    match = _LETTERED_RE.match(line)
    titled = None if match is None else title_of(match.group("rest"))
    if match is None or titled is None:
        return None
    letter = match.group("letter")
    return f"{line[: match.start('rest')].strip()} {titled[0]}", letter, titled[1]


def _title_then_number(line: str) -> tuple[str, str] | None:
    """(heading, ref) for "Purpose 3. The exclusive purpose of the Venture ..."."""
    match = _TITLE_NUMBER_RE.match(line)
    if match is None:
        return None
    title = match.group("title")
    words = {word.lower() for word in title.split()}
    if words & (_NOT_TITLE_WORDS | _NOT_LABELS | _LEGAL_FORMS) or len(title) < 4:
        return None
    if not is_title_case(title) or reads_like_sentence(title):
        return None
    # "Rise Education Group 2. Non-exclusivity": a running header before a titled article.
    if title_of(match.group("rest")) is not None:
        return None
    return f"{title} {match.group('number')}", match.group("number")


def _annex_heading(line: str) -> tuple[str, str] | None:
    """(heading, ref) for "EXHIBIT A", "Schedule 1 — Fees", "ANNEXE 2", "ANNEXES"."""
    match = _ANNEX_RE.match(line)
    if match is None or len(line) > _HEADING_MAX_CHARS:
        return None
    keyword, ident = match.group("keyword"), match.group("id") or ""
    if not (keyword.isupper() or keyword[0].isupper()) or (not ident and not keyword.isupper()):
        return None
    rest = match.group("rest").strip()
    title = rest.lstrip(SEPARATORS)
    if title:
        separated = title != rest
        # "Exhibit A attached hereto ..." is a sentence that names an exhibit.
        if body_is_toc(title) or reads_like_sentence(title):
            return None
        if not (separated or caps_heading(title) is not None or starts_like_title(title)):
            return None
    ident = ident.strip(_QUOTES)
    ref = f"{keyword.capitalize()} {ident}".strip()
    return line.rstrip(" .:"), ref


def _label_heading(line: str) -> str | None:
    """ "Governing Law: This Agreement ..." or "Term and Termination." opening its clause."""
    match = _LABEL_RE.match(line)
    if match is None:
        return None
    label = match.group("label")
    words = label.split()
    if words[0].rstrip(".").lower() in _NOT_LABELS or len(label) < 4:
        return None
    if {word.rstrip(".,").lower() for word in words} & _LEGAL_FORMS:
        return None  # "Vayyar Imaging Ltd." names a party
    if not is_title_case(label) or reads_like_sentence(label):
        return None
    return label


def _with_title_from_next_line(heading: str, following: list[str]) -> str:
    """ "ARTICLE 4" with "EXCLUSIVITÉ" alone on the next line reads "ARTICLE 4 — EXCLUSIVITÉ"."""
    candidate = next((line.strip() for line in following if line.strip()), "")
    if (
        0 < len(candidate) <= 80
        and starts_like_title(candidate)
        and not candidate.endswith((".", ",", ";"))
        and not reads_like_sentence(candidate)
        and _keyword_heading(candidate) is None
        and _numbered_heading(candidate) is None
    ):
        return f"{heading} — {candidate}"
    return heading


def line_heading(line: str, following: list[str]) -> tuple[str, str, str, bool, bool] | None:
    """(heading, ref, style, bare, titled) when ``line`` (stripped) opens a section."""
    keyword = _keyword_heading(line)
    if keyword is not None:
        heading, ref, style, has_title = keyword
        if not has_title:
            heading = _with_title_from_next_line(heading, following)
        return heading, ref, style, False, True
    numbered = _numbered_heading(line)
    if numbered is not None:
        heading, ref, has_body, titled = numbered
        # "IV. SUPPLY" and "4.1 Price" are two numberings: each makes its own run.
        style = "roman" if heading[:1].isalpha() else "numbered"
        return heading, ref, style, not has_body, titled
    lettered = _lettered_heading(line)
    if lettered is not None:
        heading, ref, has_body = lettered
        return heading, ref, "lettered", not has_body, True
    annex = _annex_heading(line)
    if annex is not None:
        return annex[0], annex[1], "annex", True, True
    title_number = _title_then_number(line)
    if title_number is not None:
        return title_number[0], title_number[1], "numbered", False, True
    caps = caps_heading(line)
    if caps is not None and not caps[1]:
        return caps[0], "", "caps", True, True
    label = _label_heading(line)
    if label is not None:
        return label, "", "label", False, True
    return None


def heading_at(
    text: str, start: int, line_index: int, found: tuple[str, str, str, bool, bool]
) -> Heading:
    heading, ref, style, bare, titled = found
    level = ref.count(".") + 1 if ref and ref[0].isdigit() else 1
    return Heading(start, " ".join(heading.split()), ref, style, level, line_index, bare, titled)


def without_lists(headings: list[Heading]) -> list[Heading]:
    """Drop short numbered or lettered lines on consecutive lines: "1. Hardware\n2. Software".

    A heading is followed by its clause; a list item by the next item.
    """
    listed = frozenset({"numbered", "roman", "lettered"})
    numbered = [h for h in headings if h.style in listed]
    bare_lines = {(h.line_index, h.level) for h in numbered if h.bare}
    return [
        h
        for h in headings
        if h.style not in listed
        or not h.bare
        or not {(h.line_index - 1, h.level), (h.line_index + 1, h.level)} & bare_lines
    ]
