"""Metadata: what the data room says and the text shows, each value with its provenance.

The data room's curated values come first; the text fills what they leave out, and a text
that disagrees with them raises a warning. Every field ends up in ``Document.provenance``:
the value, where it came from (the quoted words, their offsets, a confidence), or why it is
unknown (see :mod:`documents.provenance`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext

from core.normalize import iso_date
from documents import extraction, provenance
from documents.extraction import ContractReading, Finding, PartialDate, Unknown
from documents.models import Document
from documents.services._fallback import with_fallback

_FRENCH_MARKERS = re.compile(r"\b(le|la|les|des|du|et|est|pour|dans|contrat|présent)\b", re.I)
_ENGLISH_MARKERS = re.compile(r"\b(the|and|of|shall|this|agreement|with|for)\b", re.I)
# A SIREN/RCS written this far after a party's name, and before the next party, is its own.
_IDENTIFIER_REACH_CHARS = 600


def language_of(text: str) -> str:
    sample = text[:20000]
    french = len(_FRENCH_MARKERS.findall(sample))
    english = len(_ENGLISH_MARKERS.findall(sample))
    if not french and not english:
        return ""
    return "fr" if french >= english else "en"


@dataclass(frozen=True)
class PartyRow:
    """A party to store: its name as written, SIREN, role, and where it was found."""

    name: str
    siren: str = ""
    role: str = ""
    defined_term: str = ""
    record: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Pass:
    """One metadata pass over a document: its curated metadata, the text's reading, and
    what the pass collects (provenance records, warnings)."""

    document: Document
    meta: dict[str, Any]
    reading: ContractReading
    text: str = ""
    records: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def apply_metadata(document: Document, text: str) -> list[PartyRow]:
    """Set the document's metadata from its data-room entry and its text; returns the
    parties to store."""
    reading = with_fallback(extraction.read_contract(text), text)
    state = _Pass(document, document.raw_metadata, reading, text)
    document.title = document.title or str(state.meta.get("title") or "")
    _contract_type(state)
    if not document.title:
        document.title = _title_line(reading)
    _signature(state)
    _effective(state)
    text_end = _end_date(state)
    _renewal(state)
    text_law = _governing_law(state)
    state.warnings += extraction.find_contradictions(
        metadata_end=document.end_date if document.end_date_source == "metadata" else None,
        text_end=text_end,
        metadata_law=document.governing_law if document.governing_law_source == "metadata" else "",
        text_law=text_law,
        metadata_signature=document.signature_date,
    )
    _apply_amendment(document, text)
    document.amounts = [
        {"value": str(a.value), "currency": a.currency, "evidence": a.evidence}
        for a in reading.amounts
    ]
    document.identifiers = [
        {**provenance.json_value(found.value), "quote": found.evidence, "start": found.start}
        for found in reading.identifiers
    ]
    parties = _parties(state)
    state.records["parties"] = [party.record for party in parties]
    document.provenance = state.records
    document.warnings = state.warnings
    return parties


def title_read_in_text(document: Document) -> bool:
    """Whether the document's title is the title line ingestion read (the data room gave
    none): the index keeps its context line from the file name, as it always had."""
    read = (document.provenance or {}).get("contract_type") or {}
    return (
        not (document.raw_metadata or {}).get("title")
        and bool(document.title)
        and document.title == document.contract_type_title[:500]
        and (read.get("source"), read.get("rule")) == ("text", "title")
    )


def _title_line(reading: ContractReading) -> str:
    """The title at the head of the text ("CONTRAT DE PRESTATION DE SERVICES"), read with the
    contract's type; "" when the type was read elsewhere (a mention is no title)."""
    read = reading.contract_type
    if isinstance(read, Finding) and read.rule == "title":
        return str(read.value.title)[:500]
    return ""


def _contract_type(state: _Pass) -> None:
    document, read = state.document, state.reading.contract_type
    declared = _as_str(state.meta.get("contract_type"))
    if declared and declared.strip():
        # A label outside the vocabulary is kept as written, under "other".
        document.contract_type = extraction.contract_type_key(declared) or "other"
        document.contract_type_title = declared.strip()[:500]
        state.records["contract_type"] = provenance.from_metadata(document.contract_type, declared)
        if (
            isinstance(read, Finding)
            and read.confidence >= provenance.CONFIDENT
            and not extraction.same_contract_family(read.value.key, document.contract_type)
        ):
            message = gettext(
                "Contract type: metadata “%(metadata)s”, but the title reads “%(text)s”"
            )
            state.warnings.append(message % {"metadata": declared, "text": read.value.title})
    elif isinstance(read, Finding):
        document.contract_type = read.value.key
        document.contract_type_title = read.value.title[:500]
        state.records["contract_type"] = provenance.from_text(read, read.value.key)
    else:
        document.contract_type, document.contract_type_title = "", ""
        state.records["contract_type"] = provenance.from_unknown(read)


def _declared_date(state: _Pass, key: str, unreadable: str) -> tuple[PartialDate | None, Any]:
    """A date of the data room's metadata ("2025-01-20", "28 mars 2022", "2004", "2017-02")."""
    raw = _as_str(state.meta.get(key))
    if not raw or not raw.strip():
        return None, raw
    parsed = extraction.parse_date(raw)
    if parsed is not None:
        if provenance.TWO_DIGIT_YEAR.fullmatch(raw):
            message = gettext("Two-digit year in %(value)r: read as %(date)s, to be checked.")
            state.warnings.append(message % {"value": raw, "date": parsed.isoformat()})
        return PartialDate.of(parsed), raw
    try:
        return PartialDate.from_iso(raw.strip()), raw
    except (ValueError, TypeError):
        state.warnings.append(unreadable % {"value": raw})
        return None, raw


def _signature(state: _Pass) -> None:
    document, read = state.document, state.reading.agreement_date
    declared, raw = _declared_date(
        state, "signature_date", gettext("Unreadable signature date: %(value)r.")
    )
    signed: PartialDate | None
    if declared is not None:
        signed = declared
        state.records["signature_date"] = provenance.from_metadata(declared, raw) | _stated(read)
        if isinstance(read, Finding) and not _overlaps(read.value, declared):
            message = gettext(
                "Signature date: metadata %(metadata)s, but the text says %(text)s (“%(quote)s”)"
            )
            values = {"metadata": declared.iso(), "text": read.value.iso(), "quote": read.evidence}
            state.warnings.append(message % values)
    elif isinstance(read, Finding):
        signed = read.value
        state.records["signature_date"] = provenance.from_text(read)
        if read.alternatives:
            message = gettext("The text gives several signature dates: %(dates)s")
            dates = [read.value.iso(), *(other.value.iso() for other in read.alternatives)]
            state.warnings.append(message % {"dates": ", ".join(dates)})
    else:
        signed = None
        state.records["signature_date"] = provenance.from_unknown(read)
    document.signature_date = signed.exact if signed else None
    document.signature_precision = signed.precision if signed else ""
    document.signature_earliest = signed.earliest if signed else None
    document.signature_latest = signed.latest if signed else None


def _effective(state: _Pass) -> None:
    document, read = state.document, state.reading.effective_date
    declared, raw = _declared_date(
        state, "effective_date", gettext("Unreadable effective date: %(value)r.")
    )
    if declared is not None:
        document.effective_date = declared.exact
        state.records["effective_date"] = provenance.from_metadata(declared, raw)
    elif isinstance(read, Finding):
        document.effective_date = read.value.exact
        state.records["effective_date"] = provenance.from_text(read)
    else:
        document.effective_date = None
        state.records["effective_date"] = provenance.from_unknown(read)


def _end_date(state: _Pass) -> Finding | None:
    """The end date (metadata first), its kind and provenance; returns the text's end date
    as a finding for the contradiction check."""
    document, read = state.document, _expiration(state)
    declared, raw = _declared_date(state, "end_date", gettext("Unreadable end date: %(value)r."))
    text_end = None
    if isinstance(read, Finding) and read.value.date is not None and read.value.date.exact:
        text_end = Finding(read.value.date.exact, read.evidence, read.rule, read.start, read.end)
    document.end_date, document.end_date_source, document.end_date_kind = None, "", ""
    if declared is not None and declared.exact is not None:
        document.end_date, document.end_date_source = declared.exact, "metadata"
        document.end_date_kind = "date"
        state.records["end_date"] = provenance.from_metadata(declared, raw) | _stated(read)
    elif isinstance(read, Finding) and read.value.kind == "perpetual":
        document.end_date_source, document.end_date_kind = "text", "perpetual"
        state.records["end_date"] = provenance.from_text(read, "perpetual")
    elif text_end is not None and isinstance(read, Finding):
        document.end_date, document.end_date_source = text_end.value, "text"
        document.end_date_kind = "date"
        state.records["end_date"] = provenance.from_text(read, read.value.date)
    elif isinstance(read, Finding):
        # "until 2020": a year is not an end date a filter can trust.
        state.records["end_date"] = provenance.unknown("partial_date", read.evidence, read.start)
    else:
        state.records["end_date"] = provenance.from_unknown(read)
    return text_end


def _expiration(state: _Pass) -> Finding | Unknown:
    """The text's expiration; a term the text counts from a signing or effective date it does
    not give ("trois ans à compter de sa signature") is counted from the data room's."""
    read = state.reading.expiration
    if not (isinstance(read, Unknown) and read.reason == "start_unknown"):
        return read
    start = next(
        (
            PartialDate.from_iso(str(state.records[name]["value"]))
            for name in ("effective_date", "signature_date")
            if state.records.get(name, {}).get("source") == provenance.METADATA
        ),
        None,
    )
    return extraction.expiration(state.text, start) if start is not None else read


def _renewal(state: _Pass) -> None:
    read = state.reading.renewal
    if isinstance(read, Finding):
        state.document.renewal = provenance.json_value(read.value)
        state.records["renewal"] = provenance.from_text(read)
    else:
        state.document.renewal = {}
        state.records["renewal"] = provenance.from_unknown(read)


def _governing_law(state: _Pass) -> Finding | None:
    document, read = state.document, state.reading.governing_law
    declared = extraction.normalize_governing_law(_as_str(state.meta.get("governing_law")))
    if declared:
        document.governing_law, document.governing_law_source = declared, "metadata"
        state.records["governing_law"] = provenance.from_metadata(
            declared, state.meta.get("governing_law")
        ) | _stated(read)
    elif isinstance(read, Finding):
        document.governing_law, document.governing_law_source = str(read.value), "text"
        state.records["governing_law"] = provenance.from_text(read)
    else:
        document.governing_law, document.governing_law_source = "", ""
        state.records["governing_law"] = provenance.from_unknown(read)
    return read if isinstance(read, Finding) else None


def _stated(read: Finding | Unknown) -> dict[str, int]:
    """Where the text states a field the data room gave (``text_start``): a search filtered
    on it shows that article."""
    return {"text_start": read.start} if isinstance(read, Finding) and read.start >= 0 else {}


def _overlaps(found: PartialDate, declared: PartialDate) -> bool:
    """Whether two dates, known to different precisions, may be the same day."""
    return found.earliest <= declared.latest and declared.earliest <= found.latest


def _apply_amendment(document: Document, text: str) -> None:
    amendment = extraction.detect_amendment(
        title=document.title, contract_type=document.contract_type, text=text
    )
    document.is_amendment = amendment is not None
    document.amendment_number = amendment.number if amendment else None
    document.amendment_hints = (
        {
            "parent_title_hint": amendment.parent_title_hint,
            "parent_date_hint": iso_date(amendment.parent_date_hint),
            "new_end_date": iso_date(amendment.new_end_date.value)
            if amendment.new_end_date
            else None,
            "new_end_evidence": amendment.new_end_date.evidence if amendment.new_end_date else "",
        }
        if amendment
        else {}
    )


def _parties(state: _Pass) -> list[PartyRow]:
    """The data room's list of parties (with the roles the text gives them), else the ones
    the text names, each with the SIREN written next to it."""
    found = state.reading.parties
    by_key = {extraction.entity_key(f.value.name): f for f in found}
    names = [str(name) for name in state.meta.get("parties") or [] if name and str(name).strip()]
    sirens = state.meta.get("siren_parties") or []
    if names:
        rows = []
        for index, name in enumerate(names):
            siren = str(sirens[index]) if index < len(sirens) and sirens[index] else ""
            match = by_key.get(extraction.entity_key(name))
            if match is None:
                rows.append(PartyRow(name=name, siren=siren, record=provenance.from_metadata(name)))
                continue
            # The data room names the party; the text says where, with which role.
            where = {"quote": match.evidence, "start": match.start, "role": match.value.role}
            rows.append(
                PartyRow(
                    name=name,
                    siren=siren or _siren_near(state.reading, match, found, state.text),
                    role=match.value.role or "",
                    defined_term=match.value.defined_term or "",
                    record=provenance.from_metadata(name) | where,
                )
            )
        return rows
    return [
        PartyRow(
            name=party.value.name,
            siren=_siren_near(state.reading, party, found, state.text),
            role=party.value.role or "",
            defined_term=party.value.defined_term or "",
            record=provenance.from_text(party, party.value.name) | {"role": party.value.role},
        )
        for party in found
    ]


def _siren_near(reading: ContractReading, party: Finding, parties: list[Finding], text: str) -> str:
    """The first SIREN (or a SIRET's) whose nearest preceding party mention, within
    ``_IDENTIFIER_REACH_CHARS``, is this party's name, first word or defined term: "Quorvia est
    immatriculée sous le numéro …" belongs to Quorvia wherever the paragraph began."""
    if party.start < 0:
        return ""
    for identifier in reading.identifiers:
        window_start = max(0, identifier.start - _IDENTIFIER_REACH_CHARS)
        window = text[window_start : identifier.start]
        nearest = max(
            parties,
            key=lambda candidate: max(window.rfind(word) for word in _mentions(candidate)),
        )
        if nearest is party and max(window.rfind(word) for word in _mentions(party)) >= 0:
            return str(identifier.value.number)[:9]
    return ""


def _mentions(party: Finding) -> list[str]:
    """How the text may name a party: its name, the name's first word, its defined term."""
    name = party.value.name
    words = [name, name.split()[0] if name.split() else "", party.value.defined_term or ""]
    return [word for word in words if len(word) > 3] or [name]


def filename_title(filename: str) -> str:
    """Words of a file name ("bail_commercial_lyon.pdf" → "bail commercial lyon"), or "" when
    it is an opaque id ("a5a68dbd19.txt"): as an index prefix an id would only add noise."""
    stem = filename.rsplit(".", 1)[0]
    words = re.findall(r"[^\W\d_]{3,}", stem)
    return " ".join(words) if len(words) >= 2 else ""


def _as_str(value: Any) -> str | None:
    return None if value is None else str(value)
