"""The answer's schema and the checks the code makes before anything is shown.

The model drafts ``{answer, citations, confidence, missing, escalate_to}``; the code checks
that every ``[n]`` is a source it handed out (else the draft is retried, then the turn
abstains), that an abstention says what is missing and whom to ask, that anything else cites a
source, that quoted words are in the stored text of what it cites, and that a listing built on
an exhaustive search names every contract the search returned and the ones it set apart.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext

from agents.chat._sources import Listing, Source, SourceBook

DRAFT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "string"},
        "citations": {"type": "array", "items": {"type": "integer"}},
        "confidence": {"type": "string", "enum": ["high", "medium", "abstain"]},
        "missing": {"type": "string"},
        "escalate_to": {"type": "string"},
    },
    "required": ["answer", "citations", "confidence"],
}
CONFIDENCES = ("high", "medium", "abstain")
# A source number has at most 9 digits: a longer run is no citation (and int() of thousands
# of digits raises).
_CITATION = re.compile(r"\[(\d{1,9}(?:\s*[,;]\s*\d{1,9})*)\]")
# Quoted words the code checks against the cited text, in any of the usual marks, with or
# without inner spaces: French (double and single guillemets, and "<<" ">>"), English (double
# and single curly), German (low-high), straight double and single quotes. A straight or
# curly single quote opens only after a non-letter and closes only before one, so the
# apostrophes of "l'article" or "aujourd\u2019hui" quote nothing.
_QUOTE = re.compile(
    "\u00ab\\s*([^\u00bb]+?)\\s*\u00bb|\u2039\\s*([^\u203a]+?)\\s*\u203a|<<\\s*([^>]+?)\\s*>>"
    "|[\u201c\u201e\u201d]\\s*([^\u201c\u201d\u201e]+?)\\s*[\u201c\u201d]"
    "|(?<!\\w)[\u2018\u2019'](?=\\S)([^\\n]+?)(?<=\\S)[\u2019'](?!\\w)"
    '|"\\s*([^"]+?)\\s*"'
)
# A quote as short as a term is checked too: a one-word quote the cited text lacks is as
# made up as a sentence.
MIN_QUOTE_CHARS = 2


class DraftRejected(Exception):
    """A draft the model may correct: ``feedback`` is what it is told."""

    def __init__(self, feedback: str, kind: str) -> None:
        super().__init__(feedback)
        self.feedback = feedback
        self.kind = kind


@dataclass
class Draft:
    answer: str
    citations: list[int]
    confidence: str
    missing: str
    escalate_to: str


def parse_draft(raw: Any) -> Draft:
    if not isinstance(raw, dict) or not isinstance(raw.get("answer"), str):
        raise DraftRejected("Answer with the JSON object asked for.", "malformed")
    citations = raw.get("citations") or []
    if not isinstance(citations, list) or not all(
        isinstance(n, int) and not isinstance(n, bool) for n in citations
    ):
        raise DraftRejected("citations must be a list of source numbers.", "malformed")
    confidence = raw.get("confidence")
    if confidence not in CONFIDENCES:
        raise DraftRejected('confidence must be "high", "medium" or "abstain".', "malformed")
    return Draft(
        raw["answer"].strip(),
        citations,
        str(confidence),
        str(raw.get("missing") or "").strip(),
        str(raw.get("escalate_to") or "").strip(),
    )


def cited_numbers(draft: Draft) -> list[int]:
    """Every source number the draft uses, in order of first use (text, then the list)."""
    found = [int(n) for group in _CITATION.findall(draft.answer) for n in re.split(r"[,;]", group)]
    return list(dict.fromkeys([*found, *draft.citations]))


def check_draft(draft: Draft, book: SourceBook, *, sourced: bool) -> None:
    """Raises :class:`DraftRejected` for a draft the model must redo."""
    numbers = cited_numbers(draft)
    unknown = [n for n in numbers if book.get(n) is None]
    if unknown:
        raise DraftRejected(
            f"Sources {unknown} do not exist: cite only numbers from 1 to "
            f"{len(book.sources)}, from the list of sources.",
            "unknown_citation",
        )
    if draft.confidence == "abstain":
        if not draft.missing or not draft.escalate_to:
            raise DraftRejected(
                'An abstention must say what is missing ("missing") and whom to ask '
                '("escalate_to").',
                "abstention_incomplete",
            )
        return
    if sourced and not numbers:
        raise DraftRejected(
            "Cite the sources that support the answer with their numbers, such as [1]; "
            "if none does, abstain.",
            "uncited",
        )


# --- Completeness of a listing -----------------------------------------------------------


def _mentioned(contract_id: str, title: str, text: str, cited: set[str]) -> bool:
    return (
        contract_id in cited
        or re.search(rf"\b{re.escape(contract_id)}\b", text) is not None
        or (len(title) > 8 and _fold(title) in _fold(text))
    )


def listing_gaps(draft: Draft, book: SourceBook) -> dict[str, list[str]]:
    """Contracts of the last exhaustive search the answer leaves out, by section."""
    if not book.listings or draft.confidence == "abstain":
        return {}
    listing = book.listings[-1]
    cited = {source.contract_id for n in cited_numbers(draft) if (source := book.get(n))}
    sections = {
        "results": listing.contracts,
        "excluded_unknown": list(listing.excluded_unknown),
        "excluded_by_amendment": list(listing.excluded_by_amendment),
    }
    gaps = {
        name: [
            contract_id
            for contract_id in ids
            if not _mentioned(contract_id, listing.titles.get(contract_id, ""), draft.answer, cited)
        ]
        for name, ids in sections.items()
    }
    return {name: ids for name, ids in gaps.items() if ids}


def completion_text(gaps: dict[str, list[str]], listing: Listing) -> str:
    """What the code adds to an answer that left contracts of the listing out."""

    def named(ids: list[str]) -> str:
        # A title's own brackets must not read as a citation marker.
        titles = {i: listing.titles[i].replace("[", "(").replace("]", ")") for i in ids
                  if i in listing.titles}  # fmt: skip
        return ", ".join(f"{i} ({titles[i]})" if i in titles else i for i in ids)

    lines = []
    if gaps.get("results"):
        lines.append(
            gettext("Also returned by the search: %(list)s.") % {"list": named(gaps["results"])}
        )
    if gaps.get("excluded_unknown"):
        reasons = "; ".join(f"{i}: {listing.excluded_unknown[i]}" for i in gaps["excluded_unknown"])
        lines.append(gettext("Could not be decided (%(reasons)s).") % {"reasons": reasons})
    if gaps.get("excluded_by_amendment"):
        moved = "; ".join(
            f"{i}: {listing.excluded_by_amendment[i]}" for i in gaps["excluded_by_amendment"]
        )
        lines.append(gettext("Moved out by an amendment (%(list)s).") % {"list": moved})
    return "\n".join(lines)


# --- Quotes ------------------------------------------------------------------------------


def _fold(text: str) -> str:
    """Accents, case, typographic apostrophes and quotes, and whitespace normalised."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    plain = plain.replace("\u2019", "'").replace("\u2018", "'").replace("\u00a0", " ")
    return re.sub(r"\s+", " ", plain).strip().casefold()


@dataclass
class QuoteCheck:
    verified: list[str] = field(default_factory=list)
    normalised: list[str] = field(default_factory=list)  # found once normalised
    removed: list[str] = field(default_factory=list)


def verify_quotes(text: str, stored: list[str]) -> tuple[str, QuoteCheck]:
    """``text`` with every quotation not found in ``stored`` (the cited texts) removed."""
    check = QuoteCheck()
    folded = [_fold(passage) for passage in stored]

    def replace(match: re.Match[str]) -> str:
        quote = next(group for group in match.groups() if group is not None)
        if len(quote.strip()) < MIN_QUOTE_CHARS:
            return match.group(0)
        if any(quote in passage for passage in stored):
            check.verified.append(quote)
            return match.group(0)
        if any(_fold(quote) in passage for passage in folded):
            check.normalised.append(quote)
            return match.group(0)
        check.removed.append(quote)
        return gettext("[quotation removed: not found in the cited text]")

    return _QUOTE.sub(replace, text), check


# --- Citations substituted ---------------------------------------------------------------


def segments(text: str, book: SourceBook) -> list[dict[str, Any]]:
    """The answer split into text and citations (each a source number), for the page."""
    parts: list[dict[str, Any]] = []
    position = 0
    for match in _CITATION.finditer(text):
        if match.start() > position:
            parts.append({"text": text[position : match.start()]})
        for n in (int(x) for x in re.split(r"[,;]", match.group(1))):
            if book.get(n) is not None:
                parts.append({"cite": n})
        position = match.end()
    if position < len(text):
        parts.append({"text": text[position:]})
    return parts


def without_citations(text: str, numbers: set[int]) -> str:
    """``text`` with the citations of ``numbers`` taken out (a group keeps its other ones)."""

    def replace(match: re.Match[str]) -> str:
        kept = [x.strip() for x in re.split(r"[,;]", match.group(1)) if int(x) not in numbers]
        return f"[{', '.join(kept)}]" if kept else ""

    return _CITATION.sub(replace, text)


def substituted(text: str, book: SourceBook) -> str:
    """Plain text with each ``[n]`` replaced by the source it stands for."""

    def replace(match: re.Match[str]) -> str:
        sources = [book.get(int(x)) for x in re.split(r"[,;]", match.group(1))]
        return "; ".join(f"[{book.label(s)}]" for s in sources if isinstance(s, Source))

    return _CITATION.sub(replace, text)
