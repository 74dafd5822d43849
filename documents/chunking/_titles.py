"""What follows a heading's number: a title ("Governing Law", "DURÉE", "Services." before the
clause), a sentence (not a heading), or a table of contents' page number."""

from __future__ import annotations

import re

# Dashes spelled as escapes: em, en and hyphen all separate a number from its title.
DASHES = "\u2014\u2013-"
SEPARATORS = f" \t{DASHES}:.)"
_ROMAN_RE = re.compile(r"^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")
_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
_FIRST = frozenset({"1er", "1re", "1ère", "premier", "première", "first"})
_TITLE_MAX_WORDS = 10
_CAPS_MAX_WORDS = 12
_OPENING_QUOTES = "\u00ab\"\u201c'\u2018[( "
# A title ends at a full stop or colon, at a wide gap, or where a sub-section's number
# starts ("Services 1.1 Provision"); what follows is the body.
_TITLE_END_RE = re.compile(
    r"[.:](?=\s|$)|\s{2,}|\s(?=\d{1,3}\.\d{1,3}\s)|\s(?=\([a-z0-9]{1,4}\)\s)"
)
# A table of contents: a page number after dot leaders or a gap, then a gap or the end.
_TOC_RE = re.compile(r"(?:\.{3,}|…|\s{2,}|\t)\s*\d{1,4}$")
_TOC_BODY_RE = re.compile(r"^(?:\.{2,}|…)?\s*\d{1,4}(?:\s{2,}|\s*$)")
_CAPS_WORD = r"[^\W\da-zß-ÿ_](?:[^\W\da-zß-ÿ_]|['\u2019&/-])*"
_CAPS_RUN_RE = re.compile(
    rf"^(?P<title>{_CAPS_WORD}(?:,?[ \t]+(?:{_CAPS_WORD}|&))*)(?=$|[\s.:;,{DASHES}])"
)
# "DEFINITIONS a. Affiliate means ...": the clause opens on a list item.
_LIST_MARK_RE = re.compile(r"^\(?(?:[a-h]|i{1,3}|iv|v|vi{1,3})[.)]\s")
_MINOR_WORDS = frozenset({
    "a", "an", "and", "as", "at", "by", "for", "from", "in", "into", "of", "on", "or", "the",
    "to", "with", "à", "au", "aux", "d", "de", "des", "du", "en", "et", "l", "la", "le", "les",
    "par", "pour", "sur", "un", "une",
})  # fmt: skip
# Words that make a short sentence-case line a sentence rather than a French-style title.
_SENTENCE_WORDS = frozenset({
    "shall", "will", "must", "may", "agree", "agrees", "is", "are", "be", "has", "have", "that",
    "which", "est", "sont", "sera", "seront", "doit", "doivent", "peut", "peuvent", "que", "qui",
    "engage", "hereby", "not", "ne", "pas",
})  # fmt: skip


def _roman_to_int(numeral: str) -> int | None:
    if not numeral or not _ROMAN_RE.match(numeral):
        return None
    total = 0
    for current, following in zip(numeral, [*numeral[1:], ""], strict=True):
        value = _ROMAN_VALUES[current]
        total += -value if following and _ROMAN_VALUES[following] > value else value
    return total


def normalise_ref(number: str) -> str | None:
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


def is_title_case(title: str) -> bool:
    significant = [word for word in _words(title) if word.lower() not in _MINOR_WORDS]
    if not significant:
        return False
    capitalised = sum(1 for word in significant if word[0].isupper())
    return capitalised / len(significant) >= 0.6


def starts_like_title(title: str) -> bool:
    first = title.lstrip(_OPENING_QUOTES)[:1]
    return first.isalpha() and first.isupper()


def reads_like_sentence(text: str) -> bool:
    # Split at apostrophes too, so that "s'engage" is seen as "engage".
    return any(word.lower() in _SENTENCE_WORDS for word in re.findall(r"[^\W\d_]+", text))


def body_is_toc(body: str) -> bool:
    """Does the text after a title start with a table of contents' page number?"""
    return bool(_TOC_BODY_RE.match(body)) or bool(_TOC_RE.search(body[:120]) and len(body) < 120)


def caps_heading(text: str) -> tuple[str, str] | None:
    """(title, body) when ``text`` opens with a heading in capitals ("GOVERNING LAW",
    "RELATIONSHIP OF THE PARTIES 2.1 ..."); None for a sentence in capitals."""
    match = _CAPS_RUN_RE.match(text)
    if match is None:
        return None
    title = match.group("title").rstrip(", ")
    words = _words(title)
    if not 1 <= len(words) <= _CAPS_MAX_WORDS or max(len(word) for word in words) < 3:
        return None
    if reads_like_sentence(title) or not any(ch.isalpha() for ch in title):
        return None
    body = text[len(title) :].lstrip(" \t")
    # A sentence in capitals goes on in capitals, or in lower case: "NOTWITHSTANDING the".
    if body and (body[0].islower() or body[:1] == ",") and not _LIST_MARK_RE.match(body):
        return None
    return title, body.lstrip(SEPARATORS) if body[:1] in ".:" + DASHES else body


def title_split(rest: str) -> tuple[str, str] | None:
    """(title, body) when ``rest`` starts with a title: capitals ("FEES 3.1 The Client"), or a
    short title-case phrase ending at a full stop, colon, gap or sub-number ("Services. The")."""
    caps = caps_heading(rest)
    if caps is not None and (not caps[1] or not caps[1][0].islower()):
        return caps
    end = _TITLE_END_RE.search(rest, 0, 90)
    title = (rest[: end.start()] if end else rest).strip()
    body = rest[end.end() :].strip() if end else ""
    if end is None and len(rest) > 80:
        return None
    if not title or len(title.split()) > _TITLE_MAX_WORDS or not is_title_case(title):
        return None
    if body and not (body[0].isupper() or body[0].isdigit() or body[0] in "(\"“«'"):
        return None
    return title, body


def title_of(rest: str) -> tuple[str, bool] | None:
    """(title, has_body) after a heading number; None when the rest reads like a sentence.

    "Governing Law", "Durée du contrat", "FEES" and "Services. The Consultant shall ..." have
    titles; "The parties agree that ..." does not.
    """
    rest = rest.strip()
    if not starts_like_title(rest) or (_TOC_RE.search(rest[:120]) and len(rest) < 120):
        return None
    split = title_split(rest)
    if split is not None and split[1]:
        if body_is_toc(split[1]):
            return None
        return split[0].rstrip(" .:"), True
    if len(rest) > 80 or len(rest.split()) > 8 or rest.endswith((",", ";")):
        return None
    # A short line standing alone; French titles are in sentence case, so accept that too
    # unless it reads like a sentence.
    if rest.isupper() or is_title_case(rest):
        return rest.rstrip(" .:"), False
    if rest.endswith(".") or reads_like_sentence(rest):
        return None
    return rest.rstrip(" .:"), False
