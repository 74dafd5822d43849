"""Governing law: a small controlled vocabulary, and the clause that names it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ._common import Finding, collapse_whitespace, excerpt, fold_accents

_US_STATES = (
    "Alabama", "Alaska", "Arizona", "Arkansas", "Colorado", "Connecticut", "Florida", "Georgia",
    "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas", "Kentucky", "Louisiana", "Maine",
    "Maryland", "Massachusetts", "Michigan", "Minnesota", "Mississippi", "Missouri", "Montana",
    "Nebraska", "Nevada", "New Hampshire", "New Jersey", "New Mexico", "North Carolina",
    "North Dakota", "Ohio", "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island",
    "South Carolina", "South Dakota", "Tennessee", "Texas", "Utah", "Vermont", "Virginia",
    "Washington", "West Virginia", "Wisconsin", "Wyoming",
)  # fmt: skip

# (pattern on accent-folded lower-case text, label). Order does not matter: the earliest
# jurisdiction named in the value wins, so "New York law, excluding Delaware rules" is New York.
_US_FEDERAL = "droit fédéral américain"
_JURISDICTIONS: list[tuple[str, str]] = [
    (r"new[- ]york|new[- ]yorkais", "droit new-yorkais"),
    (r"delaware", "droit delaware"),
    (r"californi(?:a|e|en|enne)\b", "droit californien"),
    (r"district of columbia|district de columbia", "droit du district de Columbia"),
    (r"\bfrance\b|\bfrancaise?\b|\bfrench\b", "droit français"),
    (r"\bsuisse\b|\bswiss\b|switzerland|confederation suisse|helvetique", "droit suisse"),
    (
        r"england|english\s+(?:common\s+)?law|\banglais\b|angleterre|\bwales\b|pays de galles",
        "droit anglais",
    ),
    (r"german|allemand|allemagne|federal republic of germany", "droit allemand"),
    (r"belgi(?:um|an|que)|\bbelge\b", "droit belge"),
    (r"luxembourg", "droit luxembourgeois"),
    (r"\bspain\b|spanish|espagn", "droit espagnol"),
    (r"\bital(?:y|ian|ie|ien)\b", "droit italien"),
    (r"netherlands|\bdutch\b|neerlandais|pays-bas|holland", "droit néerlandais"),
    (r"ontario", "droit canadien (Ontario)"),
    (r"british columbia|colombie-britannique", "droit canadien (Colombie-Britannique)"),
    (r"quebec", "droit canadien (Québec)"),
    (r"alberta", "droit canadien (Alberta)"),
    (r"hong kong", "droit de Hong Kong"),
    (r"people'?s republic of china|\bprc\b|\bchin(?:a|ese|e|ois)\b", "droit chinois"),
    (r"\bisra[eë]l", "droit israélien"),
    (r"\bjapan|japonais|\bjapon\b", "droit japonais"),
    (r"\bindia\b|indian law|\binde\b", "droit indien"),
    (r"singapo", "droit singapourien"),
    (r"\bireland\b|\birish\b|irland", "droit irlandais"),
    (r"\btaiwan", "droit taïwanais"),
    (r"\baustrali", "droit australien"),
    (r"\bmonaco\b|monegasque", "droit monégasque"),
    (r"\bunited states\b|\betats-unis\b", _US_FEDERAL),
] + [
    (
        # "Kansas" must not match inside "Arkansas", nor "Virginia" inside "West Virginia".
        r"(?<!west )\b" + re.escape(state.lower()) + r"\b",
        f"droit de l'État de {state}",
    )
    for state in _US_STATES
]
# The vocabulary's labels are French (what is stored and filtered on); English pages show
# these names instead.
_ENGLISH = {
    "droit new-yorkais": "New York law",
    "droit delaware": "Delaware law",
    "droit californien": "California law",
    "droit du district de Columbia": "District of Columbia law",
    "droit français": "French law",
    "droit suisse": "Swiss law",
    "droit anglais": "English law",
    "droit allemand": "German law",
    "droit belge": "Belgian law",
    "droit luxembourgeois": "Luxembourg law",
    "droit espagnol": "Spanish law",
    "droit italien": "Italian law",
    "droit néerlandais": "Dutch law",
    "droit canadien (Ontario)": "Ontario law (Canada)",
    "droit canadien (Colombie-Britannique)": "British Columbia law (Canada)",
    "droit canadien (Québec)": "Quebec law (Canada)",
    "droit canadien (Alberta)": "Alberta law (Canada)",
    "droit de Hong Kong": "Hong Kong law",
    "droit chinois": "Chinese law",
    "droit israélien": "Israeli law",
    "droit japonais": "Japanese law",
    "droit indien": "Indian law",
    "droit singapourien": "Singapore law",
    "droit irlandais": "Irish law",
    "droit taïwanais": "Taiwanese law",
    "droit australien": "Australian law",
    "droit monégasque": "Monaco law",
    _US_FEDERAL: "US federal law",
} | {f"droit de l'État de {state}": f"{state} law" for state in _US_STATES}
_COMPILED = [(re.compile(pattern), label) for pattern, label in _JURISDICTIONS]
_LABELS = {label for _, label in _JURISDICTIONS}
# One pass of the union first: most candidate clauses name no jurisdiction at all.
_ANY_JURISDICTION = re.compile("|".join(f"(?:{pattern})" for pattern, _ in _JURISDICTIONS))


def normalize_governing_law(value: str | None) -> str | None:
    """Map a governing-law value (French or English) to the controlled vocabulary, else None.

    "French law" -> "droit français", "laws of the State of New York" -> "droit new-yorkais".
    Unknown or blank values stay None: a jurisdiction is never guessed.
    """
    if not value or not value.strip():
        return None
    cleaned = collapse_whitespace(value)
    if cleaned in _LABELS:
        return cleaned
    folded = fold_accents(cleaned).lower().replace("\u2019", "'")
    if not _ANY_JURISDICTION.search(folded):
        return None
    found = sorted(
        (match.start(), label)
        for pattern, label in _COMPILED
        if (match := pattern.search(folded)) is not None
    )
    # "the laws of the United States and the State of Texas": the state law is the answer.
    specific = [label for _, label in found if label != _US_FEDERAL]
    if specific:
        return specific[0]
    return found[0][1] if found else None


# Phrases that introduce the governing-law clause, French then English.
_TRIGGER = re.compile(
    r"(?:soumise?s?|r[ée]gie?s?|rel[eè]ve(?:nt)?|gouvern[ée]e?s?|interpr[ée]t[ée]e?s?|applicable)"
    r"\s+(?:exclusivement\s+)?(?:au|aux|par\s+l[ea]|par\s+les|du|à\s+la|selon\s+l[ea])\s+"
    r"(?:droit|lois?|l[ée]gislation)\b"
    r"|\b(?:loi|droit)\s+applicable\b"
    r"|\bgovern(?:ed|s|ing)?\b|\bconstrued?\b|\bconstruction\b|\binterpret(?:ed|ation)\b"
    r"|\bcontrolled\s+by\b|\bin\s+accordance\s+with\s+the\s+laws?\b|\bchoice\s+of\s+law\b"
    r"|\bsubject\s+to\s+the\s+(?:internal\s+|substantive\s+)?laws?\b"
    r"|\b(?:shall|will|to)\s+apply\b|\bapplies\b",
    re.IGNORECASE,
)
# The first word of every _TRIGGER alternative, found by a cheap scan of the lower-cased text:
# matching the full trigger everywhere costs ten times more on a 50-page contract.
_TRIGGER_START = re.compile(
    r"\b(?:soumis|r[ée]gi|rel[eè]v|gouvern|interpr|applicable|loi|droit|govern|constru"
    r"|controlled|in\s+accordance|choice|subject\s+to|shall\s+apply|will\s+apply|to\s+apply"
    r"|applies)"
)
# The jurisdiction has to sit near a word for "law": a bare "Delaware corporation" is not it.
_LAW_WORD = re.compile(r"\b(?:laws?|droit|loi|lois|l[ée]gislation|legislation)\b", re.IGNORECASE)
_WINDOW_CHARS = 260
_LAW_REACH_CHARS = 140
# Whole words: "performed in accordance with the laws of" is not "formed under the laws of".
_NOT_GOVERNING = re.compile(
    r"\b(?:organi[sz]ed|incorporated|existing|standing|formed|chartered|constitu[ée]e"
    r"|immatricul[ée]e|securities|tax(?:es|ation)?)\b",
    re.IGNORECASE,
)
# "without regard to conflicts of law principles of any other state", "choice of law rules":
# this "law" names a body of rules to set aside, not the law chosen.
_CONFLICT_OF_LAWS = re.compile(r"\b(?:conflicts?|choice)\s+of\s+$", re.IGNORECASE)
# "made in the State of California and governed by the laws thereof": the law is the
# jurisdiction named just before, in the same sentence.
_BACK_REFERENCE = re.compile(
    r"\s+(?:thereof|of\s+(?:such|said|that|the\s+same)\s+(?:state|commonwealth|jurisdiction"
    r"|country|province))\b",
    re.IGNORECASE,
)
_BACK_REFERENCE_REACH_CHARS = 300
# The sentence speaks of the contract itself ("This Agreement shall be governed ..."), not of a
# counsel's opinion, an export regime or the rules "governing the conversion" of a bank: a
# lawyer reads the clause about the agreement first, wherever the others sit.
_ABOUT_THE_CONTRACT = re.compile(
    r"\bthis\s+(?:[\w-]+\s+){0,3}?(?:agreement|contract|guarant(?:y|ee)|amendment|addendum"
    r"|lease|licen[cs]e|note|instrument|deed)s?\b|\bthe\s+agreement\b|\bhere(?:of|under|in|to)\b"
    r"|\b(?:le|ce|du|au)\s+(?:pr[ée]sent\s+)?(?:contrat|avenant|bail|accord)\b"
    r"|\b(?:la|cette)\s+(?:pr[ée]sente\s+)?convention\b|\bles\s+pr[ée]sentes\b",
    re.IGNORECASE,
)
# The sentence's end: a full stop after a lower-case word or a bracket ("U.S. law" goes on),
# or after a capitalised heading word ("GOVERNING LAW. This Agreement ...").
_SENTENCE_END = re.compile(r"(?:(?<=[a-z)\]])|(?<=[A-Z]{2}))\.(?:\s|$)|;")


def _triggers(text: str) -> Iterator[re.Match[str]]:
    lowered = text.lower()
    if len(lowered) != len(text):
        # A few characters change length when lower-cased; offsets would drift.
        yield from _TRIGGER.finditer(text)
        return
    for start in _TRIGGER_START.finditer(lowered):
        trigger = _TRIGGER.match(text, start.start())
        if trigger:
            yield trigger


@dataclass(frozen=True)
class _Candidate:
    label: str
    start: int
    end: int
    about_the_contract: bool


def _last_jurisdiction(text: str) -> str | None:
    """The jurisdiction named last in ``text`` (the one a "thereof" points back to)."""
    folded = fold_accents(text).lower().replace("\u2019", "'")
    if not _ANY_JURISDICTION.search(folded):
        return None
    found = [
        (match.start(), label) for pattern, label in _COMPILED for match in pattern.finditer(folded)
    ]
    return max(found)[1] if found else None


def _label_at(
    text: str, law_word: re.Match[str], sentence_start: int, limit: int
) -> tuple[str, int] | None:
    """The jurisdiction this word for "law" names and where its words end, or None (an
    incorporation, a conflict-of-laws rule, no jurisdiction nearby)."""
    # The 40 characters before, cut at their own sentence's start, not where the look-back
    # began: "organized under the laws of Delaware, ... agree that these terms govern".
    before = re.split(r"[.;:]\s", text[max(0, law_word.start() - 40) : law_word.start()])[-1]
    if _NOT_GOVERNING.search(before) or _CONFLICT_OF_LAWS.search(before):
        return None
    back = _BACK_REFERENCE.match(text, law_word.end())
    if back:
        earlier = text[max(0, law_word.start() - _BACK_REFERENCE_REACH_CHARS) : law_word.start()]
        label = _last_jurisdiction(re.split(r"[.;]\s", earlier)[-1])
        return (label, back.end()) if label else None
    # The clause ends with its sentence: a venue or notice clause nearby is not read.
    after = text[law_word.start() : min(law_word.end() + _LAW_REACH_CHARS, limit + 100)]
    after = _SENTENCE_END.split(after, maxsplit=1)[0]
    # "The laws of California shall govern": the words before the law, from the look-back on.
    if sentence_start > law_word.start() - 40:
        before = re.split(r"[.;:]\s", text[sentence_start : law_word.start()])[-1]
    label = normalize_governing_law(before + after)
    return (label, law_word.start() + len(after)) if label else None


def _candidate(text: str, trigger: re.Match[str]) -> _Candidate | None:
    """The first law named in the clause a trigger opens, with whether it speaks of the
    contract."""
    limit = trigger.end() + _WINDOW_CHARS
    paragraph_end = text.find("\n\n", trigger.end() + 2, limit)
    if paragraph_end != -1 and trigger.group(0).lower().endswith("applicable"):
        # A "LOI APPLICABLE" heading governs only its own paragraph.
        limit = min(limit, paragraph_end)
    if trigger.group(0).lower().endswith(("apply", "applies")):
        # "The laws of Germany shall apply": the law comes before the verb, never after it
        # ("shall apply during the Term. (a) Acme is in good standing under the laws of ...").
        limit = trigger.start()
    # "The laws of California shall govern": the law may come just before the verb.
    lookback = max(0, trigger.start() - 150)
    full_stop = text.rfind(". ", lookback, trigger.start())
    sentence_start = full_stop + 2 if full_stop != -1 else lookback
    for law_word in _LAW_WORD.finditer(text, sentence_start, limit):
        found = _label_at(text, law_word, sentence_start, limit)
        if found:
            label, end = found
            about = _ABOUT_THE_CONTRACT.search(text, sentence_start, end) is not None
            return _Candidate(label, trigger.start(), end, about)
    return None


def governing_law_from_text(text: str) -> Finding | None:
    """Find the governing-law clause of a contract and normalise it, or None.

    "Le présent contrat est soumis au droit français" -> "droit français"; a heading whose
    clause is blank yields None. A clause that speaks of the contract ("This Agreement shall
    be governed by ...") wins over an earlier law named about something else (a counsel's
    opinion, export rules); failing one, the first law named near a trigger is read.
    """
    chosen: _Candidate | None = None
    for trigger in _triggers(text):
        candidate = _candidate(text, trigger)
        if candidate is None:
            continue
        if candidate.about_the_contract:
            chosen = candidate
            break
        chosen = chosen or candidate
    if chosen is None:
        return None
    return Finding(
        chosen.label,
        excerpt(text, chosen.start, chosen.end),
        "governing_law",
        start=chosen.start,
        end=chosen.end,
        confidence=0.9,
    )


def governing_law_in_english(label: str) -> str:
    """A governing law of the vocabulary in English ("droit anglais" -> "English law"); a
    value outside it as stored."""
    return _ENGLISH.get(label, label)
