"""Parties and their roles read from a contract's text: preamble, defined terms, labelled
lines ("Party A: ..."), signature blocks. Pure functions; never raises on odd input.

Confidence scale (how often a lawyer would agree the words name a contracting party):
0.9 the preamble names it; 0.85 a labelled line ("Licensee: X") does; 0.8 only a defined
term introduces it ('X, with offices at ... ("Consultant")'); 0.7 only a signature block
shows it; 0.6 only the first operative sentence does ("X cède au Y ...").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ._common import Finding, excerpt
from ._parties import entity_key
from ._preamble import HEAD_CHARS, LEGAL_FORM_RE, Named, clean_party, preamble_names
from ._roles import ROLES, defined_term_in, role_for_term

MAX_PARTIES = 6
_TAIL_CHARS = 4000
CONFIDENCE = {
    "preamble": 0.9,
    "labelled_line": 0.85,
    "defined_term": 0.8,
    "signature_block": 0.7,
    "operative_sentence": 0.6,
}
# Defined terms that name the contract or a group of parties, not one party.
_NOT_A_PARTY_TERM = re.compile(
    r"^(?:the\s+)?(?:agreement|contract|parties|party|effective\s+date|les\s+parties"
    r"|le\s+contrat|la\s+convention|.*\b(?:date|agreement|plan|products?|services?|territory"
    r"|shares?|stock|offering|act|program(?:me)?|notes?|property|premises|software)\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Party:
    """A contracting party as the text names it.

    ``role`` is a key of :data:`ROLES`'s values ("licensor", "lessee", "service_provider")
    when the text gives one; ``defined_term`` is the short name as written ("le Preneur").
    """

    name: str
    role: str | None = None
    defined_term: str | None = None


def _party_from(named: Named) -> Party:
    term = defined_term_in(named.rest[:300])
    defined = term[0] if term and not _NOT_A_PARTY_TERM.match(term[0]) else None
    return Party(named.name, role_for_term(defined), defined)


def _finding(text: str, named: Named, rule: str, party: Party | None = None) -> Finding:
    return Finding(
        value=party or _party_from(named),
        evidence=excerpt(text, named.start, named.end),
        rule=rule,
        start=named.start,
        end=named.end,
        confidence=CONFIDENCE[rule],
    )


# --- labelled lines: "Party A: X", "LICENSOR: X", "Le Client : X" -----------------------------

_LABEL = re.compile(
    # Two spaces stand for a line break the text extraction lost ('parties"):   Company: X').
    r"(?:^|(?<=[\n.;])|(?<=\s\s))[ \t]*(?P<label>Party\s+[A-Z]|PARTY\s+[A-Z]"
    r"|[A-Z][A-Za-z\u00c0-\u017f]{3,20}(?:\s[A-Z][a-z]+)?)"
    r"[ \t]*(?:\((?P<role>[^()\n]{1,30})\))?[ \t]*[:\uff1a][ \t]*"
    r"|\b(?P<spaced>Party\s+[A-Z]|PARTY\s+[A-Z])[ \t]*(?:\([^()\n]{1,30}\))?[ \t]*[:\uff1a][ \t]*",
)

# A form's field for a party: "Company Name: Cardlytics, Inc.", "Provider Name: X".
_NAME_FIELD = re.compile(r"\s+Name$")


def _labelled_lines(text: str) -> list[Finding]:
    found: list[Finding] = []
    for line in _LABEL.finditer(text, 0, min(len(text), HEAD_CHARS)):
        label = (line.group("label") or line.group("spaced")).strip()
        written = line.group("role") or _NAME_FIELD.sub("", label)
        role = role_for_term(written)
        if role is None and not re.fullmatch(r"(?i)party\s+[a-z]", label):
            continue
        cleaned = clean_party(text[line.end() : line.end() + 200].split("\n", 1)[0])
        if cleaned is None:
            continue
        start = text.find(cleaned[0], line.end())
        if start < 0:
            continue
        named = Named(cleaned[0], start, start + len(cleaned[0]), cleaned[1])
        party = Party(cleaned[0], role, written if role else None)
        found.append(_finding(text, named, "labelled_line", party))
    return found


# --- defined terms: 'Aduro Biotech, Inc., with offices at ... ("Aduro")' ----------------------

_TERM_IN_PARENS = re.compile(
    r"\(\s*(?:the\s+|hereinafter\s+(?:referred\s+to\s+as\s+)?(?:the\s+)?)?[\"“”]"
    r"(?P<term>[^\"“”()]{1,40})[\"“”]\s*\)"
)
# Where the words that introduce a party can begin: a new line, a clause, "and", "between".
_NAME_OPENING = re.compile(
    r"\n|[;:)]\s|\b(?:and|AND|between|BETWEEN|among|by|BY|with|WITH|entre|et)\s|\.\s+(?=[A-Z])"
)
_LEGAL_FORM_IN = re.compile(rf"(?<![\w-]){LEGAL_FORM_RE}")
_ABBREVIATION = re.compile(rf"(?:{LEGAL_FORM_RE}|\b[A-Z]\.?)\s*$")


def _openings(window: str) -> list[int]:
    """Where a clause of ``window`` may start (after "and", a new line, a full stop)."""
    starts: list[int] = []
    for boundary in _NAME_OPENING.finditer(window):
        # "Inc. (" is an abbreviation's full stop, not the end of a sentence.
        if boundary.group().startswith(".") and _ABBREVIATION.search(
            window[: boundary.start() + 1]
        ):
            continue
        starts.append(boundary.end())
    return starts


# A name inside a sentence, after a verb ("... appoint FEDERATED ADVISORY SERVICES COMPANY, a
# statutory trust ("FASC")", "under which MediaNet Group Technologies, Inc., a Nevada ...");
# not after an article or a preposition that opens a description ("a Pennsylvania
# corporation", "the laws of British Columbia").
_CAPITAL_AFTER_WORD = re.compile(
    r"\b(?!(?:a|an|the|of|in|at|on|under|from|laws)\b)[a-z]+,?\s+(?=[A-Z])"
)
# A name read in mid-sentence must be introduced as a party: its legal form, or a
# description or its defined term right after it (the window ends where the term opens).
_INTRODUCED_HERE = re.compile(r"^\s*(?:,\s*(?:a|an)\s|\(|$)")


def _name_in_clause(text: str, opening: int, term_start: int) -> Named | None:
    cleaned = clean_party(text[opening:term_start])
    if cleaned is None:
        return None
    start = text.find(cleaned[0], opening)
    return Named(cleaned[0], start, start + len(cleaned[0]), cleaned[1]) if start >= 0 else None


def _name_before(text: str, window_start: int, term_start: int) -> Named | None:
    # The earliest clause that opens with a name: "IREYA B.V, represented by Andrea van
    # Elsas, ("Consultant")" is IREYA's, not its representative's.
    window = text[window_start:term_start]
    for offset in _openings(window):
        named = _name_in_clause(text, window_start + offset, term_start)
        if named is not None:
            return named
    for capital in _CAPITAL_AFTER_WORD.finditer(window):
        named = _name_in_clause(text, window_start + capital.end(), term_start)
        if named is not None and (
            _LEGAL_FORM_IN.search(named.name) or _INTRODUCED_HERE.match(named.rest)
        ):
            return named
    return None


def _term_fits(term: str, name: str) -> bool:
    """A party's defined term is a role ("Licensee") or stands for its name ("Aduro",
    "EMV"); "Effective Date" or "Products" introduce something else."""
    if _NOT_A_PARTY_TERM.match(term):
        return False
    if role_for_term(term) is not None:
        return True
    term_key, name_key = entity_key(term), entity_key(name)
    if not term_key:
        return False
    initials = "".join(word[0] for word in name_key.split())
    compact = term_key.replace(" ", "")
    return any(word in name_key.split() for word in term_key.split()) or (
        len(compact) >= 2 and initials.startswith(compact[:2]) and compact in initials + compact
    )


def _defined_terms(text: str) -> list[Finding]:
    found: list[Finding] = []
    previous_end = 0
    for term in _TERM_IN_PARENS.finditer(text, 0, min(len(text), HEAD_CHARS)):
        window_start = max(previous_end, term.start() - 300)
        previous_end = term.end()
        named = _name_before(text, window_start, term.start())
        defined = term.group("term").strip()
        if named is None or not _term_fits(defined, named.name):
            continue
        party = Party(named.name, role_for_term(defined), defined)
        found.append(_finding(text, named, "defined_term", party))
    return found


# --- signature blocks: a name above "By: ____" ----------------------------------------------

_SIGNATURE = re.compile(r"(?i)\bBy\s*:|/s/|\bPar\s*:|^[ \t]*Signature\s*:", re.MULTILINE)
# The signatory company just above its "By:": capitals ("HPS PARTNERS, LLC") or a name that
# ends with its legal form ("Acme Software, Inc.").
_CAPITALS_NAME = re.compile(
    rf"(?P<name>[A-Z0-9][A-Z0-9&.,'\u2019/\u00c0-\u00dd -]{{2,90}}?(?:{LEGAL_FORM_RE})?)[\s,:_]*$"
)
_FORM_NAME = re.compile(rf"(?m)^[ \t]*(?P<name>[^\n]{{2,90}}?{LEGAL_FORM_RE})[\s,:_]*$")
_NOT_A_SIGNATORY = re.compile(
    r"(?i)\b(?:witness|whereof|agreed|accepted|acknowledged|signature|signed|page|name|title"
    r"|date|dated|exhibit|schedule|parties|executed|its|by)\b"
)


def _signatory(before: str) -> str | None:
    last_line = before.rstrip(" \t\n_:,").rsplit("\n", 1)[-1]
    for pattern in (_CAPITALS_NAME, _FORM_NAME):
        match = pattern.search(last_line)
        if match is None:
            continue
        # "IN WITNESS WHEREOF, ... ACME INC." keeps only what follows the last full stop.
        name = re.split(r"[:;]\s|\.\s+(?=[A-Z])|\]\s*", match.group("name"))[-1].strip()
        cleaned = clean_party(re.sub(r"(?i)^(?:for|pour)\s+(?:la\s+soci[ée]t[ée]\s+)?", "", name))
        # "By: HPS Partners, LLC, its manager" signs for the party; it is not one.
        agent = re.search(r"By\s*:\s*$", last_line[: match.start("name")])
        if cleaned is not None and not agent and not _NOT_A_SIGNATORY.search(cleaned[0]):
            return cleaned[0]
    return None


def _signature_blocks(text: str) -> list[Finding]:
    tail_start = max(0, len(text) - _TAIL_CHARS)
    tail = text[tail_start:]
    found: list[Finding] = []
    for signature in _SIGNATURE.finditer(tail):
        name = _signatory(tail[max(0, signature.start() - 200) : signature.start()])
        if name is None:
            continue
        at = tail.rfind(name, 0, signature.start())
        if at >= 0:
            named = Named(name, tail_start + at, tail_start + at + len(name), "")
            found.append(_finding(text, named, "signature_block", Party(name)))
    return found


# --- the first operative sentence: "La Banque Orsenne ouvre au Groupe Brenalis ..." -----------

_PROPER = r"(?:(?:M\.|Mme|Mr\.|Ms\.|Dr\.)\s+)?[A-Z\u00c0-\u00dd][\w\u00c0-\u017f&'.-]*"
_PROPER_RUN = rf"{_PROPER}(?:\s+(?:de\s+|du\s+|des\s+|of\s+)?{_PROPER}){{0,5}}"
# "X cède au Y", "X grants Y": a name, one or two lower-case verbs, a name.
_OPERATIVE = re.compile(
    rf"(?:^|(?<=\n)|(?<=\.\s))(?:(?:La|Le|L'|The)\s+)?(?P<first>{_PROPER_RUN})(?:,\s[^,\n]{{1,40}},)?"
    r"\s+(?P<verb>[a-z\u00e0-\u00ff]+(?:\s+[a-z\u00e0-\u00ff]+)?)\s+"
    r"(?:(?:à|au|aux|à\s+la|pour|pour\s+le|de|du|le|la|l')\s+)?"
    rf"(?:(?:la\s+soci[ée]t[ée]|le|la|l')\s+)?(?P<second>{_PROPER_RUN})"
)


def _named_in(text: str, start: int, words: str) -> Named | None:
    cleaned = clean_party(words)
    return Named(cleaned[0], start, start + len(cleaned[0]), "") if cleaned else None


# "Ribault Logistique prépare et expédie ... les commandes de Soravie Santé SAS": a sentence
# opening a line names its subject, then, further on, a company known by its legal form or
# as a group ("du Groupe Brenalis"); places ("Vitré", "Saint-Herblain") have neither.
_SUBJECT_LINE = re.compile(
    rf"(?:^|(?<=\n))[ \t]*(?:(?:La|Le|L'|The)\s+)?(?P<first>{_PROPER_RUN})\s+[a-z\u00e0-\u00ff]+"
    # The sentence may wrap onto the next line (PDF text), not into the next heading.
    r"(?P<sentence>(?:[^\n]|\n(?!\s*\n|[ \t]*(?:ARTICLE|Article|[A-Z\d]{1,3}[.)]\s)))*?)"
    r"(?:\.\s|\n(?=\s*\n|[ \t]*(?:ARTICLE|Article|[A-Z\d]{1,3}[.)]\s))|$)"
)
_COMPANY_CUE = re.compile(rf"(?<![\w-]){LEGAL_FORM_RE}|^(?:Groupe|Group)\s")


def _subject_and_company(text: str) -> list[Named]:
    for line in _SUBJECT_LINE.finditer(text, 0, min(len(text), 1500)):
        first = _named_in(text, line.start("first"), line.group("first"))
        if first is None:
            continue
        at = line.start("sentence")
        for run in re.finditer(_PROPER_RUN, line.group("sentence")):
            second = _named_in(text, at + run.start(), run.group())
            # One of the two at least is plainly a company: "QUORVIA SAS", "Hydrelle SA".
            if second is None or not _COMPANY_CUE.search(second.name):
                continue
            if _LEGAL_FORM_IN.search(first.name) or _LEGAL_FORM_IN.search(second.name):
                return [first, second]
    return []


# Without a preamble, two capitalised words around a preposition are a street and a town
# ("rue de la\nGarenne à Carquefou") more often than parties: then one of the two must be
# plainly a company or a person.
_PARTY_CUE = re.compile(
    rf"(?<![\w-]){LEGAL_FORM_RE}|^(?:Groupe|Group|Banque|Bank|Cabinet|Soci[ée]t[ée]|Fondation"
    r"|Fonci[èe]re|Compagnie|Company)\s|^(?:M\.|Mme|Mr\.|Mrs\.|Ms\.|Dr\.|Me)\s"
)


# Words that join two place names or a heading, not a party's act: "Garenne à Carquefou".
_NOT_VERBS = frozenset(
    {
        "à", "a", "au", "aux", "de", "du", "des", "en", "sur", "sous", "dans", "par", "pour",
        "avec", "chez", "of", "in", "on", "at", "to", "by", "for", "with", "from",
    }
)  # fmt: skip


def _operative_sentence(text: str) -> list[Finding]:
    for sentence in _OPERATIVE.finditer(text, 0, min(len(text), 1500)):
        found = []
        for group in ("first", "second"):
            named = _named_in(text, sentence.start(group), sentence.group(group))
            if named is None:
                break
            found.append(_finding(text, named, "operative_sentence", Party(named.name)))
        names = [finding.value.name for finding in found]
        verb = sentence.group("verb").split()[0]
        if len(found) == 2 and (
            verb not in _NOT_VERBS or any(_PARTY_CUE.search(name) for name in names)
        ):
            return found
    return [
        _finding(text, named, "operative_sentence", Party(named.name))
        for named in _subject_and_company(text)
    ]


# A title or a definition ("made between SEV and DCL") may name the parties by abbreviations
# that the contract spells out elsewhere: "DCL DAIRY CREST LIMITED", 'Physician Sales &
# Service, Inc. ("PSS")'. The full name is the one a lawyer would record.
_ABBREVIATED = re.compile(r"[A-Z][A-Za-z]{1,5}")
# Words with no full stop, so that "October. DMC DAIRY LIMITED" starts after the sentence.
_FULL_NAME = re.compile(rf"(?:(?:[A-Z][\w'-]*|&),?\s+){{1,6}}?{LEGAL_FORM_RE}")


def _initials(words: list[str]) -> set[str]:
    # "DAIRY CREST LIMITED" abbreviates as "DCL" or, without its legal form, "DC".
    spelled = "".join(word[0] for word in words if word[0].isalnum()).upper()
    return {spelled, "".join(word[0] for word in entity_key(" ".join(words)).split()).upper()}


def _spelled_out(abbreviation: str, text: str) -> Named | None:
    for term in _defined_terms(text):
        if term.value.defined_term == abbreviation and term.value.name != abbreviation:
            return Named(term.value.name, term.start, term.end, "")
    for match in _FULL_NAME.finditer(text, 0, min(len(text), 2 * HEAD_CHARS)):
        words = match.group().split()
        # "NETZEE AND BANKERS BANK" joins two parties; it spells out neither.
        if len(words) < 2 or any(word.lower() == "and" for word in words):
            continue
        start = match.start()
        if words[0] == abbreviation and abbreviation.upper() in _initials(words[1:]):
            start = text.index(words[1], start + len(words[0]))
        elif words[0] != abbreviation and abbreviation.upper() not in _initials(words):
            continue
        return Named(text[start : match.end()], start, match.end(), "")
    return None


def _preamble(text: str) -> list[Finding]:
    findings: list[Finding] = []
    for named in preamble_names(text):
        spelled = None
        if _ABBREVIATED.fullmatch(named.name) and sum(c.isupper() for c in named.name) >= 2:
            spelled = _spelled_out(named.name, text)
        findings.append(_finding(text, spelled or named, "preamble"))
    return findings


# Tried in this order while fewer than two parties are known.
_RULES: tuple[Callable[[str], list[Finding]], ...] = (
    _preamble,
    _labelled_lines,
    _defined_terms,
    _signature_blocks,
    _operative_sentence,
)


def extract_parties(text: str) -> list[Finding]:
    """The contracting parties, each a :class:`Party` with the rule that found it, in
    reading order, without repeats (by :func:`entity_key`), at most six.

    The preamble is trusted first; labelled lines, defined terms, the signature block and
    the first operative sentence only complete it while fewer than two parties are known.
    """
    findings: list[Finding] = []
    seen: set[str] = set()
    if not text:
        return findings
    for rule in _RULES:
        if len(findings) >= 2:
            break
        for finding in rule(text):
            key = entity_key(finding.value.name)
            if key and key not in seen and len(findings) < MAX_PARTIES:
                seen.add(key)
                findings.append(finding)
    return sorted(findings, key=lambda finding: finding.start)


def extract_parties_from_text(text: str) -> list[str]:
    """Party names in reading order (cleaned display names, no repeats, at most six)."""
    return [finding.value.name for finding in extract_parties(text)]


__all__ = ["ROLES", "Party", "extract_parties", "extract_parties_from_text"]
