"""Governing law: a small controlled vocabulary, and the clause that names it."""

from __future__ import annotations

import re
from collections.abc import Iterator

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
    r"|\bsubject\s+to\s+the\s+(?:internal\s+|substantive\s+)?laws?\b",
    re.IGNORECASE,
)
# The first word of every _TRIGGER alternative, found by a cheap scan of the lower-cased text:
# matching the full trigger everywhere costs ten times more on a 50-page contract.
_TRIGGER_START = re.compile(
    r"\b(?:soumis|r[ée]gi|rel[eè]v|gouvern|interpr|applicable|loi|droit|govern|constru"
    r"|controlled|in\s+accordance|choice|subject\s+to)"
)
# The jurisdiction has to sit near a word for "law": a bare "Delaware corporation" is not it.
_LAW_WORD = re.compile(r"\b(?:laws?|droit|loi|lois|l[ée]gislation|legislation)\b", re.IGNORECASE)
_WINDOW_CHARS = 260
_LAW_REACH_CHARS = 140
_NOT_GOVERNING = re.compile(
    r"organi[sz]ed|incorporated|existing|formed|chartered|constitu[ée]e|immatricul[ée]e"
    r"|securities|tax",
    re.IGNORECASE,
)


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


def governing_law_from_text(text: str) -> Finding | None:
    """Find the governing-law clause of a contract and normalise it, or None.

    "Le présent contrat est soumis au droit français" -> "droit français"; a heading whose
    clause is blank yields None.
    """
    for trigger in _triggers(text):
        limit = trigger.end() + _WINDOW_CHARS
        paragraph_end = text.find("\n\n", trigger.end() + 2, limit)
        if paragraph_end != -1 and trigger.group(0).lower().endswith("applicable"):
            # A "LOI APPLICABLE" heading governs only its own paragraph.
            limit = min(limit, paragraph_end)
        # "The laws of California shall govern": the law may come just before the verb.
        lookback = max(0, trigger.start() - 150)
        sentence_start = max(text.rfind(". ", lookback, trigger.start()) + 2, lookback)
        for law_word in _LAW_WORD.finditer(text, sentence_start, limit):
            before = text[max(sentence_start, law_word.start() - 40) : law_word.start()]
            if _NOT_GOVERNING.search(before):
                continue
            # Stay inside the sentence, so a venue or notice clause nearby is not read as law.
            before = re.split(r"[.;:]\s", before)[-1]
            after = text[law_word.start() : min(law_word.end() + _LAW_REACH_CHARS, limit + 100)]
            after = re.split(r"(?<=[a-z)\]])\.(?:\s|$)|;", after, maxsplit=1)[0]
            label = normalize_governing_law(before + after)
            if label:
                end = law_word.start() + len(after)
                return Finding(
                    label,
                    excerpt(text, trigger.start(), end),
                    "governing_law",
                    start=trigger.start(),
                    end=end,
                    confidence=0.9,
                )
    return None


def governing_law_in_english(label: str) -> str:
    """A governing law of the vocabulary in English ("droit anglais" -> "English law"); a
    value outside it as stored."""
    return _ENGLISH.get(label, label)
