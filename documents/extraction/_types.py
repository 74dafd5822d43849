"""A contract's type read from its title or preamble, as a key of the vocabulary.

The title is looked for in the head only (the first 4,000 characters): an upper-case run
naming a contract ("DISTRIBUTOR AGREEMENT", "CONTRAT DE LICENCE DE LOGICIEL") or a short
title-case line ("Reseller Agreement"), past SEC exhibit stamps; failing that, the preamble
("This Co-Branding Agreement is made...", « Le présent bail est conclu... »).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ._common import Finding, Unknown, collapse_whitespace, excerpt
from ._vocabulary import (
    CONTRACT_TYPES,
    ContractTypeLabel,
    contract_type_family,
    contract_type_key,
    contract_type_label,
    fold_label,
    same_contract_family,
)

__all__ = [
    "CONTRACT_TYPES",
    "ContractType",
    "ContractTypeLabel",
    "contract_type_family",
    "contract_type_from_text",
    "contract_type_key",
    "contract_type_label",
    "same_contract_family",
]

_HEAD_CHARS = 4000
_MAX_TITLE_WORDS = 16

TITLE_CONFIDENCE = 0.9
PREAMBLE_CONFIDENCE = 0.75
MENTION_CONFIDENCE = 0.55
GENERIC_TITLE_CONFIDENCE = 0.5


@dataclass(frozen=True)
class ContractType:
    """A vocabulary key and the title as written (whitespace collapsed)."""

    key: str
    title: str


_UPPER = "A-Z0-9\u00c0-\u00d6\u00d8-\u00de"
_UPPER_WORD = rf"[{_UPPER}][{_UPPER}&'\u2019.,/\u00ae\u00b0#()\-]*"
# An upper-case run on one line, across the wide gaps of centred titles; a dash ends it
# ("BAIL COMMERCIAL — ENTREPÔT").
_UPPER_RUN = re.compile(rf"{_UPPER_WORD}(?:[ \t]+(?:{_UPPER_WORD}|&|-))*")
# Title-case words: "Sales, Marketing, Distribution, and Supply", "Amendment #3 to the".
_TITLE_WORDS = (
    r"(?:[A-Z][\w&'\u2019/.-]*,?[ \t]+(?:(?:and|of|to|for|on|the|de|d['\u2019]|du|la|/|&|-"
    r"|\#?\d+|No\.\s?\d+)[ \t]+)*)"
)
_NOUNS = r"(?:Agreement|Contract|Contrat|Lease|Addendum|Amendment|Avenant|Terms\s+and\s+Conditions)"
_TITLE_CASE = re.compile(
    rf"^[ \t]*(?:(?:Exhibit|EXHIBIT)[ \t]+[\w.()-]+[ \t]+)?(?!This\b)"
    rf"(?P<title>{_TITLE_WORDS}{{0,8}}(?i:{_NOUNS}))[ \t]*(?:\(|$|[ \t]{{3,}}|\{{|\w)",
    re.MULTILINE,
)
# "Maintenance and support contract", alone on its line or before a wide gap.
_SHORT_LINE_TITLE = re.compile(
    rf"^[ \t]*(?P<title>[A-Z][a-z]+(?:[ \t]+[a-z]+){{0,4}}[ \t]+(?i:{_NOUNS}))"
    r"(?=[ \t]{3,}|[ \t]*$)",
    re.MULTILINE,
)
# A company's name before its form agreement: "Goosehead Insurance Agency, LLC Franchise...".
_COMPANY_PREFIX = re.compile(
    r"^.*\b(?:LLC|L\.L\.C\.|Inc\.|INC\.|Corp\.|CORP\.|Ltd\.|LTD\.|PLC|S\.A\.|SAS|SARL|GmbH)"
    r"(?=[\s,])[\s,]+"
)
# Words that make an upper-case run a contract's title rather than a heading or a name.
_CONTRACT_NOUN = re.compile(
    r"\b(?:AGREEMENTS?|AGREEMEN|CONTRACTS?|CONTRAT|CONVENTION|BAIL|LEASE|AVENANT|AMENDMENT"
    r"|ADDENDUM|ACTE|PROTOCOLE|PACTE|LETTRE DE MISSION|TERMS AND CONDITIONS|ACCORD)\b"
)
# An English title ends with its noun: "SERVICES AGREEMENT CONQUER RISK FUND" is cut there.
_ENGLISH_END = re.compile(r"\b(?:AGREEMENTS?|AGREEMEN|CONTRACT)\b")
# A sentence inside an upper-case run (an SEC legend "... AS AMENDED.") ends before the title.
_SENTENCE_END = re.compile(r"(?:(?<=[A-Z]{4})|(?<=\d{4})|(?<=\]))[.;:]\s+")
# SEC exhibit stamps and filing noise before a title: "EXHIBIT 10.21", "EX-99.01", "Exhibit A".
_STAMP = re.compile(
    r"(?:(?:EXHIBIT|EX)[\s.\-]*(?:[\dA-Z]{1,3}[.()\-\dA-Z]*)?|FORM\s+OF|THIS|THE|[\d.()\-]+"
    r"|EXECUTION\s+(?:VERSION|COPY)|CONFIDENTIAL)\s+",
    re.IGNORECASE,
)
# "NON-COMPETITION AGREEMENT AMENDMENT NO. 1", "COOPERATION AGREEMENT\n(2014 Amendment)".
_TRAILING_AMENDMENT = re.compile(
    r"\s{0,12}\(?(?:\d{4}[ \t]+)?(?:amendment|addendum)\b(?:[ \t]+(?:no\.?[ \t]*)?"
    r"(?:\d+|[ivx]+\b))?\)?",
    re.IGNORECASE,
)
_PREAMBLE = re.compile(
    rf"\b(?i:this|the\s+present)\s+(?P<title>{_TITLE_WORDS}{{1,8}}(?:Agreement|Contract))\b"
    r"|\b(?i:le|la|l['\u2019])\s*pr[ée]sente?\s+(?P<fr>(?i:contrat|convention|bail|acte|avenant"
    r"|pacte|protocole|lettre)\b[^,.;:()\n«»\"]{0,60})",
)
_MENTION = re.compile(rf"\b(?P<title>{_TITLE_WORDS}{{1,6}}(?:Agreement|Contract))\b")
# A generic title that names something ("JOINT FILING AGREEMENT") rather than "THIS AGREEMENT".
_BARE_GENERIC = re.compile(r"^(?:this |the )?(?:agreements?|contracts?|contrat|convention)$")
# A lease under the statute of commercial leases says so, or indexes its rent on the
# commercial indices (ILC, ILAT), which only commercial leases may use.
_COMMERCIAL_LEASE_CUE = re.compile(
    r"L\.?\s?145-\d|baux\s+commerciaux|bail\s+commercial|indice\s+des\s+loyers\s+(?:commerciaux"
    r"|des\s+activit[ée]s\s+tertiaires)|\bILC\b|\bILAT\b",
    re.IGNORECASE,
)


def _clean_run(run: str) -> tuple[int, str]:
    """The title inside an upper-case run and its offset in the run: cut at the English noun,
    past any legend sentence, stamps out."""
    end = _ENGLISH_END.search(run)
    title = run[: end.end()] if end else run
    offset = 0
    for sentence_end in _SENTENCE_END.finditer(title):
        offset = sentence_end.end()
    while stamp := _STAMP.match(title, offset):
        if stamp.end() >= len(title):
            break
        offset = stamp.end()
    return offset, title[offset:].rstrip(" ,.-(")


def _finding(text: str, key: str, title: str, start: int, rule: str, confidence: float) -> Finding:
    end = start + len(title)
    return Finding(
        value=ContractType(key=key, title=collapse_whitespace(title)),
        evidence=excerpt(text, start, end),
        rule=rule,
        start=start,
        end=end,
        confidence=confidence,
    )


def _title_candidates(head: str) -> list[tuple[int, str]]:
    candidates: list[tuple[int, str]] = []
    for run in _UPPER_RUN.finditer(head):
        if _CONTRACT_NOUN.search(run.group()) and sum(c.isalpha() for c in run.group()) > 3:
            offset, title = _clean_run(run.group())
            candidates.append((run.start() + offset, title))
    for pattern in (_TITLE_CASE, _SHORT_LINE_TITLE):
        candidates.extend((m.start("title"), m.group("title")) for m in pattern.finditer(head))
    return sorted(candidates)


def _title_findings(text: str, head: str) -> tuple[Finding | None, Finding | None]:
    """The first title naming a type in the head, and the first generic one ("AGREEMENT")."""
    generic: Finding | None = None
    for start, raw_title in _title_candidates(head):
        company = _COMPANY_PREFIX.match(raw_title)
        if company:
            start, raw_title = start + company.end(), raw_title[company.end() :]
        if not raw_title or len(raw_title.split()) > _MAX_TITLE_WORDS:
            continue
        # An amendment may name itself after the title it amends.
        trailing = _TRAILING_AMENDMENT.match(head, start + len(raw_title))
        title = head[start : trailing.end()] if trailing else raw_title
        key = contract_type_key(title)
        if key is None:
            continue
        if key != "other":
            return _finding(text, key, title, start, "title", TITLE_CONFIDENCE), generic
        if generic is None or generic.rule == "title_bare":
            bare = _BARE_GENERIC.match(fold_label(title)) is not None
            rule = "title_bare" if bare else "title_generic"
            if generic is None or not bare:
                generic = _finding(text, key, title, start, rule, GENERIC_TITLE_CONFIDENCE)
    return None, generic


def _preamble_finding(text: str, head: str) -> Finding | None:
    for match in _PREAMBLE.finditer(head):
        group = "title" if match.group("title") else "fr"
        title = match.group(group).strip()
        key = contract_type_key(title)
        if key is not None and key != "other":
            return _finding(text, key, title, match.start(group), "preamble", PREAMBLE_CONFIDENCE)
    return None


def _mention_finding(text: str, head: str) -> Finding | None:
    for match in _MENTION.finditer(head):
        key = contract_type_key(match.group("title"))
        if key is not None and key != "other":
            title = match.group("title")
            return _finding(text, key, title, match.start("title"), "mention", MENTION_CONFIDENCE)
    return None


def _refined(text: str, finding: Finding) -> Finding:
    """A plain lease whose text invokes the commercial-lease statute is a commercial lease."""
    value: ContractType = finding.value
    if value.key == "lease" and _COMMERCIAL_LEASE_CUE.search(text):
        return replace(
            finding,
            value=ContractType(key="commercial_lease", title=value.title),
            rule=f"{finding.rule}+commercial_lease_cue",
        )
    return finding


def contract_type_from_text(text: str) -> Finding | Unknown:
    """The contract's type, from its title, else its preamble, else a named agreement.

    ``value`` is a :class:`ContractType`; ``start``/``end`` span the title in ``text``. A
    preamble that names another type than the title comes back as an alternative. Returns
    ``Unknown("not_found")`` when the head names no contract type; never raises.
    """
    try:
        head = text[:_HEAD_CHARS]
        title, generic = _title_findings(text, head)
        preamble = _preamble_finding(text, head)
        named = generic if generic is not None and generic.rule == "title_generic" else None
        chosen = title or preamble or named or _mention_finding(text, head) or generic
        if chosen is None:
            return Unknown("not_found")
        if title and preamble and preamble.value.key != title.value.key:
            chosen = replace(title, alternatives=(preamble,))
        return _refined(text, chosen)
    except (re.error, ValueError, IndexError) as error:  # pragma: no cover - defensive
        return Unknown("error", evidence=str(error)[:120])
