"""Parties: entity keys, display names, SIREN numbers, and names read from a preamble."""

from __future__ import annotations

import re

from ._common import collapse_whitespace, fold_accents

_LEGAL_FORMS = frozenset(
    {
        "sas", "sasu", "sarl", "sa", "se", "sci", "snc", "eurl", "selarl", "gmbh", "ag", "kg",
        "ltd", "limited", "llc", "inc", "incorporated", "corp", "corporation", "co", "plc",
        "llp", "lp", "nv", "bv", "spa", "srl", "pte",
    }
)  # fmt: skip
_LEADING_WORDS = frozenset(
    {
        "m", "mme", "mlle", "mr", "mrs", "ms", "me", "dr", "monsieur", "madame", "mademoiselle",
        "maitre", "the", "la", "le", "l", "les", "societe",
    }
)  # fmt: skip


def entity_key(name: str) -> str:
    """Normalised identity of a party: "QUORVIA SAS" and "Quorvia" share one key.

    Case, accents, punctuation, legal forms and civil titles are ignored; the distinctive
    words are kept as they are (no fuzzy matching: "Brenalis" and "Brénalys" stay apart).
    """
    folded = fold_accents(name).lower().replace("&", " and ").replace("\u2019", "'")
    # Dotted abbreviations collapse first ("L.L.C." -> "llc", "S.p.A." -> "spa").
    folded = folded.replace(".", "")
    words = re.sub(r"[\W_]+", " ", folded).split()
    core = list(words)
    while core and core[0] in _LEADING_WORDS:
        core.pop(0)
    while core and core[-1] in _LEGAL_FORMS:
        core.pop()
    while core and core[0] in _LEGAL_FORMS:
        core.pop(0)
    # A name made only of stripped words ("SA") keeps them rather than vanish.
    return " ".join(core or words)


def display_name(name: str) -> str:
    """A party name cleaned for display: whitespace collapsed, quotes trimmed, legal form kept."""
    return collapse_whitespace(name).strip(" ,;:\"'“”«»")


def normalize_siren(value: str | None) -> str | None:
    """ "187 656 260" -> "187656260"; anything but nine digits (e.g. "en cours") -> None."""
    if not value:
        return None
    compact = re.sub(r"[\s.\u00a0\u202f-]", "", value)
    return compact if re.fullmatch(r"\d{9}", compact) else None


def luhn_is_valid(digits: str) -> bool:
    """Luhn checksum of a string of digits (SIREN, SIRET)."""
    if not digits.isdigit() or not digits.isascii():
        return False
    total = 0
    for index, char in enumerate(reversed(digits)):
        digit = int(char)
        if index % 2 == 1:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def siren_is_valid(siren: str) -> bool:
    """Luhn checksum of a nine-digit SIREN."""
    return len(siren) == 9 and luhn_is_valid(siren)


# --- preamble parties ------------------------------------------------------------------------

_HEAD_CHARS = 5000
_MAX_PARTIES = 6
_ANCHOR = re.compile(
    r"\b(?:by\s+and\s+(?:between|among)|between|among|entre(?:\s+les\s+soussign[ée]s)?)\b\s*:?",
    re.IGNORECASE,
)
_SEGMENT_END = re.compile(
    r"\bWHEREAS\b|\bRECITALS?\b|W\s?I\s?T\s?N\s?E\s?S\s?S\s?E\s?T\s?H|\bNOW,?\s+THEREFORE\b"
    r"|\bBACKGROUND\b|\bPREAMBLE\b|\bIl\s+a\s+[ée]t[ée]\s+convenu|\bPR[ÉE]AMBULE\b"
    r"|\bIT\s+IS\s+AGREED\b|\bagree\s+as\s+follows\b|\bconviennent\b|\bExpos[ée]\b",
    re.IGNORECASE,
)
_FORMS_IN_NAMES = (
    "Inc", "Ltd", "LLC", "L.L.C", "Corp", "Limited", "PLC", "Plc", "LLP", "LP", "L.P", "S.A",
    "N.V", "B.V", "GmbH", "AG", "SA", "SAS", "SARL", "S.p.A", "SpA", "S.R.L", "S.r.l", "Srl",
    "Incorporated", "Corporation", "Pte", "P.C", "N.A",
)  # fmt: skip
_FORM_VARIANTS = sorted({*_FORMS_IN_NAMES, *(form.upper() for form in _FORMS_IN_NAMES)})
_LEGAL_FORM_RE = (
    "(?:"
    + "|".join(re.escape(form) for form in _FORM_VARIANTS)
    + r"|Co(?=[.,])|CO(?=[.,]))(?![\w-])\.?"
)
# The legal form closes a company name: "Beijing Pharming Ltd. of Beijing" ends at "Ltd.".
_LEGAL_FORM_CLUSTER = re.compile(rf"(?<![\w-]){_LEGAL_FORM_RE}(?:\s*,?\s*{_LEGAL_FORM_RE})*")

# Where one party's description ends and the next party begins.
_SPLIT = re.compile(
    r"(?:(?<=[)\"”»,.])|(?<=\bpart))\s*,?\s*(?:and|et)\b\s*:?\s+"
    r"|;\s*(?:and\s+)?|\bD['\u2019]AUTRE\s+PART\b|\bET\s*:\s*",
    re.IGNORECASE,
)
# Where a party's name ends and its description begins.
_NAME_END = re.compile(
    rf",\s+(?!{_LEGAL_FORM_RE})|\s*\(|\s+(?:a|an)\s+|\s*[«“\"]|\s+(?:with|having|whose|located"
    r"|organi[sz]ed|incorporated\s+under|residing|domiciled|acting|hereinafter|herein"
    r"|au\s+capital|immatricul|dont|repr[ée]sent|ci-apr[eè]s|soci[ée]t[ée]\s+(?:par|à|anonyme)"
    r"|sise?|demeurant|n[ée]e?\s+le|d['\u2019]une\s+part|d['\u2019]autre\s+part|Address|Registered"
    r"|Legal\s+Representative)\b",
)
_LEADING_ARTICLES = re.compile(
    r"^(?:(?:la|le|les|l['\u2019]|the)\s*(?:soci[ée]t[ée]\s+)?|soci[ée]t[ée]\s+|:\s*|\(?\d{1,2}\)\s*"
    r"|\([a-z]\)\s*|the\s+following\s+parties\s*:?\s*|parties\s*:\s*)+",
    re.IGNORECASE,
)
# A preamble's "between" follows "made", "entered into", "dated"...; one in a table of
# contents or a title does not, so those are tried last.
_PREAMBLE_VERB = re.compile(
    r"\b(?:made|entered|executed|dated|concluded|agreement|contrat|conclu|sign[ée]|is|by\s+and)\b"
    r"[^.]{0,160}$",
    re.IGNORECASE,
)
_GENERIC = re.compile(
    r"^(?:the\s+)?(?:parties|party|undersigned|company|licensor|licensee|soussign|each|both"
    r"|entre|between|us|you)\b",
    re.IGNORECASE,
)


# "between A and B", "entre la société A et la société B": an "and"/"et" before a capital,
# possibly through an article ("la société", "the").
_BARE_AND = re.compile(
    r"\s+(?:and|AND|et|ET)\s+(?=(?:(?:la|le|l['\u2019]|the)\s*)?(?:soci[ée]t[ée]\s+)?[A-Z0-9])"
)


def _clean_party(chunk: str) -> str | None:
    chunk = _LEADING_ARTICLES.sub("", chunk.strip(" ,;:.\n"))
    name_end = _NAME_END.search(chunk)
    name = chunk[: name_end.start()] if name_end else chunk
    legal_form = _LEGAL_FORM_CLUSTER.search(name)
    if legal_form:
        name = name[: legal_form.end()]
    name = display_name(name).rstrip(",")
    # A sentence's full stop is not part of the name, an abbreviation's is ("Inc.", "Co.").
    if name.endswith(".") and not re.search(
        r"\b(?:Inc|Corp|Co|Ltd|L\.?P|N\.?[AV]|B\.V|S\.A)\.$", name
    ):
        name = name[:-1]
    words = name.split()
    if not (1 <= len(words) <= 10) or len(name) < 2 or _GENERIC.match(name):
        return None
    # A party name starts like a proper noun ("mPhase" and "deltathree.com" count as such);
    # a lower-case opening word is prose.
    first = words[0]
    proper = first[0].isupper() or first[0].isdigit() or first != first.lower() or "." in first
    if not proper or not any(char.isalpha() for char in name):
        return None
    return name


def _names(chunks: list[str]) -> list[str]:
    return [name for name in map(_clean_party, chunks) if name is not None]


def extract_parties_from_text(text: str) -> list[str]:
    """Parties named in the preamble ("by and between X ... and Y", "conclu entre X et Y").

    Returns cleaned display names in order of appearance, without duplicates (by entity_key),
    at most six. An empty list when no preamble is recognised.
    """
    head = collapse_whitespace(text[:_HEAD_CHARS])
    parties: list[str] = []
    seen: set[str] = set()
    anchors = sorted(
        _ANCHOR.finditer(head),
        key=lambda anchor: (
            not _PREAMBLE_VERB.search(head[max(0, anchor.start() - 200) : anchor.end()]),
            anchor.start(),
        ),
    )
    for anchor in anchors:
        stop = _SEGMENT_END.search(head, anchor.end())
        segment = head[anchor.end() : stop.start() if stop else anchor.end() + 1500]
        names = _names(_SPLIT.split(segment[:1500]))
        if len(names) < 2:
            # "between A and B" without punctuation: any "and" before a capital separates.
            fallback = _names(_BARE_AND.split(segment[:1500]))
            names = fallback if len(fallback) > len(names) else names
        found_here = len(names)
        for name in names:
            key = entity_key(name)
            if key and key not in seen:
                seen.add(key)
                parties.append(name)
        # The first preamble that names two parties is the one; later "between"s are clauses.
        if found_here >= 2 or len(parties) >= _MAX_PARTIES:
            break
    return parties[:_MAX_PARTIES]
