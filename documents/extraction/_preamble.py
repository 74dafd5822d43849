"""Where a contract names its parties: the preamble ("by and between X ... and Y", "entre X
et Y"), cleaned into names located in the original text."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ._parties import display_name
from ._roles import role_for_term

HEAD_CHARS = 5000
_SEGMENT_CHARS = 1500


@dataclass(frozen=True)
class Named:
    """A cleaned party name, its span in the original text, and the words that follow it."""

    name: str
    start: int
    end: int
    rest: str


_ANCHOR = re.compile(
    r"\b(?:by\s+and\s+(?:between|among)|between|among|B\sE\sT\sW\sE\sE\sN|entre(?:\s+les\s+soussign[ée]s)?)\b\s*:?"
    r"|\bparties\b\s*:?\s*(?=\(?(?:1|a|i)[.)])"
    # A letter agreement lists its parties after the salutation: "Ladies and Gentlemen: X
    # (the "Company"), Y (the "Bank") ... confirm with you (the "Agent")".
    r"|\b(?:Ladies\s+and\s+Gentlemen|Dear\s+Sirs(?:\s+and\s+Mesdames)?)\s*:"
    # A contract without a preamble may introduce its parties in its first recital:
    # "WHEREAS HEMISPHERX is a biopharmaceutical company ... and X Co. LTD is a ...".
    r"|\bWHEREAS\b,?(?=\s+(?-i:[A-Z])[^.;]{0,80}?\sis\s+an?\s)",
    re.IGNORECASE,
)
_SEGMENT_END = re.compile(
    r"\bWHEREAS\b|\bRECITALS?\b|W\s?I\s?T\s?N\s?E\s?S\s?S\s?E\s?T\s?H|\bNOW,?\s+THEREFORE\b"
    r"|\bBACKGROUND\b|\bPREAMBLE\b|\bIl\s+a\s+[ée]t[ée]\s+convenu|\bPR[ÉE]AMBULE\b"
    r"|\bIT\s+IS\s+AGREED\b|\bagree\s+as\s+follows\b|\bconviennent\b|\bExpos[ée]\b"
    r"|\bTABLE\s+OF\s+CONTENTS?\b|\.{4,}"
    # A title's "between A and B" runs into the preamble sentence, which starts anew.
    r"|\bThis\s+Agreement\s+is\s+(?:made|entered)\b"
    # A full sentence closed, then a numbered heading or a lettered recital ("1. SCOPE",
    # "C. ESSI Natural ..."): the preamble is over.
    r"|(?<=[a-z)\"”]\.)\s+(?=(?:\d{1,2}\.\d{0,2}|(?-i:[A-H])\.)\s+(?-i:[A-Z]))",
    re.IGNORECASE,
)
_FORMS_IN_NAMES = (
    "Inc", "Ltd", "LLC", "L.L.C", "Corp", "Limited", "PLC", "Plc", "LLP", "LP", "L.P", "S.A",
    "N.V", "B.V", "GmbH", "AG", "SA", "SAS", "SARL", "S.p.A", "SpA", "S.R.L", "S.r.l", "Srl",
    "Incorporated", "Corporation", "Pte", "P.C", "N.A", "A/S", "AB", "Oy", "KGaA", "S.L",
    "S.A.S", "Pty", "plc", "inc", "ltd", "llc", "corporation",
)  # fmt: skip
_FORM_VARIANTS = sorted({*_FORMS_IN_NAMES, *(form.upper() for form in _FORMS_IN_NAMES)})
LEGAL_FORM_RE = (
    "(?:"
    + "|".join(re.escape(form) for form in _FORM_VARIANTS)
    + r"|Co(?=[.,])|CO(?=[.,]))(?![\w-])\.?"
)
# The legal form closes a company name: "Beijing Pharming Ltd. of Beijing" ends at "Ltd.".
_LEGAL_FORM_CLUSTER = re.compile(rf"(?<![\w-]){LEGAL_FORM_RE}(?:\s*,?\s*{LEGAL_FORM_RE})*")

# Where one party's description ends and the next party begins; a defined term closes one
# party when a capitalised name with its own defined term follows ('A ("A"), B ("B") and C').
_SPLIT = re.compile(
    r"(?:(?<=[)\"”»,.])|(?<=\bpart))\s*,?\s*(?:and|et)\b\s*[:,]?\s+"
    r"|;\s*(?:and\s+)?|(?<=[\"”]\))\s*,\s+(?=(?-i:[A-Z])[^()]{0,80}(?:\([^()]{0,30}\)[^()]{0,60})?\(\s*(?:the\s+)?[\"“])"
    r"|,\s*together\s+with\s+(?=(?-i:[A-Z]))|\bD['\u2019]AUTRE\s+PART\b|\bET\s*:\s*|\s\((?:[2-6]|[b-f]|ii|iii|iv)\)\s"
    # "("Purolator") - and - PARCELWAY ...": the "and" set apart by dashes on its own line.
    r"|\s[-\u2013\u2014]+\s*(?:and|et)\s*[-\u2013\u2014]+\s"
    # '("Photronics"), Dai Nippon Printing Co., Ltd., a Japanese corporation with a long
    # address ("DNP")': a defined term closed, then a company's name with its legal form.
    rf"|(?<=[\"”]\))\s*,\s+(?=(?-i:[A-Z][^()]{{0,60}}?{LEGAL_FORM_RE}))",
    re.IGNORECASE,
)
# Where a party's name ends and its description begins.
_NAME_END = re.compile(
    rf",\s+(?!{LEGAL_FORM_RE})|\s*\(|\s+(?:a|an)\s+|\s*[«“\"]|\s+(?:with|having|whose|located"
    r"|is(?=\s+an?\s)|of(?=\s+[\[\d])|organi[sz]ed|incorporated\s+under|residing|domiciled"
    r"|acting|hereinafter|herein|dated"
    r"|au\s+capital|immatricul|dont|repr[ée]sent|ci-apr[eè]s|soci[ée]t[ée]\s+(?:par|à|anonyme)"
    r"|sise?|demeurant|n[ée]e?\s+le|d['\u2019]une\s+part|d['\u2019]autre\s+part|Address|Registered"
    r"|Legal\s+Representative|on\s+behalf|for\s+itself|effective|as\s+of|of\s+the\s+one"
    r"|of\s+the\s+other|its\s+|Telephone|Tel|Fax|E-mail|Attn|Attention)\b",
)
# A name followed by a verb is the subject of a sentence ("Premier are each referred to
# as"), not a party being introduced.
_SENTENCE_SUBJECT = re.compile(
    r"^\s+(?:are|is(?!\s+an?\s+(?:[\w-]+\s+){0,3}?(?:company|corporation|partnership|trust|bank"
    r"|firm|entity))|was|were|may|shall|will|agrees?|desires?|wishes|each|collectively"
    r"|individually|together|to\s+be|hereby|has|have|owns?)\b"
)
# "the following parties" comes before "the": the first alternative that matches is kept.
# Dashes open a party set apart on its own line ("- and - COMPANION CORP", "--- ENTRUST").
_LEADING_ARTICLES = re.compile(
    r"^(?:the\s+following\s+parties\s*:?\s*|[-\u2013\u2014_]+\s*(?:and\s*[-\u2013\u2014_]+\s*)?"
    r"|(?:(?:la|le|les|the)\s+|l['\u2019]\s*)(?:soci[ée]t[ée]\s+)?|soci[ée]t[ée]\s+|:\s*"
    r"|\(?\d{1,2}\)\s*|\d{1,2}\.\s+|\([a-z]\)\s*|\((?:the\s+)?[A-Z][a-z]{2,20}\)\s*(?=[A-Z])"
    r"|parties\s*:\s*|party\s+[a-z]\s*:\s*|its\s+[A-Z][a-z]+,\s*(?=[A-Z])"
    # A person's calling before the name: "between professional golfer, TOM WATSON, (...)".
    r"|(?-i:[a-z]+\s+[a-z]+),\s+(?=(?-i:[A-Z])))+",
    re.IGNORECASE,
)
# A preamble's "between" follows "made", "entered into", "dated"...; one in a table of
# contents or a title does not, so those are tried last.
_PREAMBLE_VERB = re.compile(
    r"\b(?:made|entered|executed|dated|concluded|agreement|contrat|conclu|sign[ée]|is|by\s+and)\b"
    r"[^.]{0,160}$",
    re.IGNORECASE,
)
# "made and entered into ... by and between" is the preamble; "AGREEMENT BETWEEN X AND Y" in
# a title, a cover page or a table of contents is only a hint, tried after it.
_STRONG_VERB = re.compile(
    r"\b(?:made|entered|executed|concluded|conclu|by\s+and|agreement\s+is)\b[^.]{0,160}$",
    re.IGNORECASE,
)
_TABLE_OF_CONTENTS = re.compile(r"\b\d{1,2}\.\d{1,2}\b.{0,120}\b\d{1,2}\.\d{1,2}\b")
_GENERIC = re.compile(
    r"^(?:the\s+)?(?:(?:parties|party|undersigned|company|us|you|we|name|title|date|term"
    r"|notices?|acceptance|conditions|signature|address)$|(?:soussign|each|both|entre|between"
    r"|section|article|schedule|exhibit|annex|whereas|recitals?|table|in\s+witness|now|this"
    r"|by|all|any|such|said|other|either|neither|party\s+[a-z]\b|les\s+parties|board\s+of"
    r"|know\s+all\s+men|these\s+presents"
    # A letter's date above its addressee ("July 20, 2018") is no name.
    r"|(?:january|february|march|april|may|june|july|august|september|october|november"
    r"|december)\s+\d+)\b)",
    re.IGNORECASE,
)
# A party is never called "Agreement" or a page heading's number ("Audits 35 5.").
_NOT_IN_A_NAME = re.compile(
    r"(?i)\b(?:agreement|contrat|convention|section|article)\b|\d+\.\d+|\s\d{1,3}\s+\d|\.\s\.\s"
)
# Words a name may hold in lower case: "Bank of America", "Société des Eaux", "d/b/a".
_NAME_LINKS = frozenset(
    {
        "of", "and", "&", "de", "du", "des", "la", "le", "les", "d", "l", "the", "for", "y",
        "et", "e", "da", "van", "von", "der", "den", "di", "d/b/a", "dba", "in", "on", "zo.o", "/",
    }
)  # fmt: skip
# "Mr. Nirmal Minda", "Gregory P. Spivy": a person named as a party.
_PERSON = re.compile(r"^(?:Mr|Mrs|Ms|Dr|M|Mme|Me)\.?\s|\s[A-Z]\.\s+[A-Z]")
# What follows a party being introduced: its defined term, a description ("a Delaware
# corporation", "an individual"), its seat or its registration.
_INTRODUCED = re.compile(
    r"^[\s,]*(?:\(|[\"“«]|(?:a|an|une?)\s|(?:with|having|whose|located|organi[sz]ed"
    r"|incorporated|residing|domiciled|hereinafter|au\s+capital|immatricul|dont|ci-apr[eè]s"
    r"|sise?|demeurant|repr[ée]sent)\b)",
    re.IGNORECASE,
)
_ABBREVIATION_END = re.compile(r"\b(?:Inc|Corp|Co|Ltd|L\.?P|N\.?[AV]|B\.V|S\.A|Jr|Sr|[A-Z])\.$")


def clean_party(chunk: str) -> tuple[str, str] | None:
    """The party name a chunk of preamble opens with, and the words after it; None if it
    does not read as a name."""
    chunk = _LEADING_ARTICLES.sub("", chunk.strip(" ,;:\n").lstrip("."))
    name_end = _NAME_END.search(chunk)
    name = chunk[: name_end.start()] if name_end else chunk
    legal_form = _LEGAL_FORM_CLUSTER.search(name)
    if legal_form:
        name = name[: legal_form.end()]
    name = display_name(name).rstrip(",")
    # A sentence's full stop is not part of the name, an abbreviation's is ("Inc.", "Co.").
    if name.endswith(".") and not _ABBREVIATION_END.search(name):
        name = name[:-1]
    at = chunk.find(name)
    rest = chunk[at + len(name) :] if at >= 0 else ""
    if not _looks_like_a_name(name) or _SENTENCE_SUBJECT.match(rest):
        return None
    return name, rest


def _looks_like_a_name(name: str) -> bool:
    words = name.split()
    if not (1 <= len(words) <= 10) or len(name) < 2 or _GENERIC.match(name):
        return False
    # "<<enter Company Name>>" is a form's blank, not a name.
    if not any(char.isalpha() for char in name) or any(char in name for char in ":%<>"):
        return False
    # "Franchisor" or "the Distributor" alone is a defined term standing in for a name.
    if _NOT_IN_A_NAME.search(name) or role_for_term(name) is not None:
        return False
    if _LEGAL_FORM_CLUSTER.fullmatch(name.rstrip(".")):
        return False
    # "Consultant and Company", "McDATA and Reseller": a defined term joined, not a name.
    if any(role_for_term(part) for part in re.split(r"\s+and\s+", name)):
        return False
    # A party name is a run of proper nouns ("mPhase", "deltathree.com", "i3" count as such);
    # a lower-case word that is not a linking word ("of", "de") means we are reading prose.
    # A brand written in lower case ("e-centives, Inc.", "bw-3 Franchise Systems, Inc.") may
    # open a name that its legal form closes.
    brand_first = bool(
        _LEGAL_FORM_CLUSTER.search(name.rstrip(".,")) and re.search(r"[-.\d]", words[0])
    )
    for position, word in enumerate(words):
        bare = word.strip("(),.'\"")
        if not bare or bare.lower() in _NAME_LINKS or (position == 0 and brand_first):
            continue
        if _LEGAL_FORM_CLUSTER.fullmatch(word.strip("(),")):
            continue
        if not (bare[0].isupper() or bare[0].isdigit() or bare != bare.lower() or "." in bare):
            return False
    first = words[0]
    return first.lower() not in _NAME_LINKS or first[0].isupper()


def collapse_with_offsets(text: str) -> tuple[str, list[int]]:
    """``text`` with whitespace runs as single spaces, and each kept character's offset."""
    parts: list[str] = []
    offsets: list[int] = []
    for token in re.finditer(r"\s+|\S+", text):
        if token.group()[0].isspace():
            parts.append(" ")
            offsets.append(token.start())
        else:
            parts.append(token.group())
            offsets.extend(range(token.start(), token.end()))
    offsets.append(len(text))
    return "".join(parts), offsets


def _pieces(pattern: re.Pattern[str], segment: str, base: int) -> list[tuple[str, int]]:
    pieces: list[tuple[str, int]] = []
    position = 0
    for separator in pattern.finditer(segment):
        pieces.append((segment[position : separator.start()], base + position))
        position = separator.end()
    pieces.append((segment[position:], base + position))
    return pieces


# "between A and B", "entre la société A et la société B": an "and"/"et" before a capital,
# possibly through an article ("la société", "the").
_BARE_AND = re.compile(
    r"\s+(?:and|AND|And|et|ET)\s*,?\s+(?=(?:(?:la|le|l['\u2019]|the)\s*)?(?:soci[ée]t[ée]\s+)?"
    r"(?:[A-Z0-9]|[a-z]+[A-Z.]))"
)


def _listed(chunk: str) -> list[tuple[str, str]]:
    """The names a chunk opens with: one, or a list of companies each closed by its legal
    form ("UNITED TECHNOLOGIES CORPORATION, OTIS WORLDWIDE CORPORATION")."""
    cleaned = clean_party(chunk)
    names: list[tuple[str, str]] = []
    while cleaned is not None and len(names) < 6:
        names.append(cleaned)
        name, rest = cleaned
        if not (_LEGAL_FORM_CLUSTER.search(name) and rest.startswith(", ")):
            break
        cleaned = clean_party(rest)
        if cleaned is not None and not _LEGAL_FORM_CLUSTER.search(cleaned[0]):
            break
    return names


def _named(pieces: list[tuple[str, int]], head: str, offsets: list[int]) -> list[Named]:
    found: list[Named] = []
    for chunk, at in pieces:
        start = at
        for name, rest in _listed(chunk):
            start = head.find(name, start)
            if start < 0:
                break
            end = offsets[start + len(name) - 1] + 1
            found.append(Named(name, offsets[start], end, rest[:400]))
            start += len(name)
    return found


def _rank(head: str, anchor: re.Match[str]) -> tuple[int, int]:
    before = head[max(0, anchor.start() - 200) : anchor.end()]
    if _TABLE_OF_CONTENTS.search(head, anchor.end(), anchor.end() + 200):
        return 3, anchor.start()
    if _STRONG_VERB.search(before):
        return 0, anchor.start()
    return (1 if _PREAMBLE_VERB.search(before) else 2), anchor.start()


def _role_slots(pieces: list[tuple[str, int]]) -> int:
    """How many pieces name a party by its role only ("by and between McDATA and Reseller")."""
    count = 0
    for chunk, _at in pieces:
        bare = _LEADING_ARTICLES.sub("", chunk.strip(" ,;:\n."))
        name_end = _NAME_END.search(bare)
        if role_for_term(bare[: name_end.start()] if name_end else bare) is not None:
            count += 1
    return count


def has_party_cue(named: Named) -> bool:
    """Whether the words read as a party being introduced rather than a common-noun phrase
    ("Software Maintenance", "World Series Games"): a legal form, a defined term or a
    description right after it ("a Delaware corporation"), or a person's title or initial."""
    if _LEGAL_FORM_CLUSTER.search(named.name) or _PERSON.search(named.name):
        return True
    return bool(_INTRODUCED.match(named.rest))


def _reads_as_party(named: Named) -> bool:
    # A title's "AGREEMENT BETWEEN INGRAM MICRO AND NETGEAR" names parties in capitals or by
    # one word ("Inktomi"); a phrase of several capitalised common nouns needs a cue.
    return named.name.isupper() or " " not in named.name or has_party_cue(named)


def preamble_names(text: str) -> list[Named]:
    """Parties named after the first "between"/"entre" that names two of them."""
    head, offsets = collapse_with_offsets(text[:HEAD_CHARS])
    anchors = sorted(_ANCHOR.finditer(head), key=lambda anchor: _rank(head, anchor))
    fallback_single: list[Named] = []
    for anchor in anchors[:12]:
        stop = _SEGMENT_END.search(head, anchor.end(), anchor.end() + _SEGMENT_CHARS)
        segment = head[anchor.end() : stop.start() if stop else anchor.end() + _SEGMENT_CHARS]
        pieces = _pieces(_SPLIT, segment, anchor.end())
        names = _named(pieces, head, offsets)
        if len(names) < 2:
            # "between A and B" without punctuation: any "and" before a capital separates.
            bare_pieces = _pieces(_BARE_AND, segment, anchor.end())
            bare = _named(bare_pieces, head, offsets)
            if len(bare) > len(names):
                names, pieces = bare, bare_pieces
        strong = _rank(head, anchor)[0] == 0
        # Past the preamble sentence, "between" joins things, not parties: a name found
        # there must read as a party introduced.
        if not strong:
            names = [named for named in names if _reads_as_party(named)]
        # The first preamble that names two parties is the one; later "between"s are clauses.
        if len(names) >= 2:
            return names
        if names and not fallback_single:
            fallback_single = names
        # "entered into by and between McDATA and Reseller": the other party goes by its role,
        # so this is the preamble all the same and later "between"s are not searched.
        if strong and names and len(names) + _role_slots(pieces) >= 2:
            return fallback_single
    return fallback_single
