"""Where each metadata value came from: the records the pipeline stores in
``Document.provenance`` and the reasons shown when the text did not tell.

A record is plain JSON so that the viewer, ``get_contract`` and the admin read the same thing:

- found in the text: ``{"value", "source": "text", "quote", "start", "end", "confidence",
  "rule", "alternatives": [{"value", "quote", "start", "end"}]}``;
- given by the data room's metadata: ``{"value", "source": "metadata", "confidence": 1.0}``;
- not known: ``{"value": None, "source": "", "reason": code, "quote"}``.

Offsets are in ``Document.text``; :func:`documents.selectors.document_provenance` turns them
into the article and the page.
"""

from __future__ import annotations

import re
from dataclasses import asdict, is_dataclass
from datetime import date
from decimal import Decimal
from typing import Any

from django.utils.translation import get_language, gettext, gettext_lazy

from documents import extraction
from documents.extraction import Finding, PartialDate, Unknown
from documents.models import Document

TEXT, METADATA = "text", "metadata"
# Shown as "certain" from this confidence up; below, the viewer says "probable" or
# "uncertain" and a lawyer checks the quote.
CONFIDENT = 0.85
PROBABLE = 0.6

# Fields in the order the viewer lists them.
FIELDS = (
    "contract_type",
    "signature_date",
    "effective_date",
    "end_date",
    "renewal",
    "governing_law",
)
FIELD_LABELS = {
    "contract_type": gettext_lazy("Contract type"),
    "signature_date": gettext_lazy("Signature date"),
    "effective_date": gettext_lazy("Effective date"),
    "end_date": gettext_lazy("End date"),
    "renewal": gettext_lazy("Renewal"),
    "governing_law": gettext_lazy("Governing law"),
    "party": gettext_lazy("Party"),
}
_REASONS = {
    "not_found": gettext_lazy("not stated in the text"),
    "impossible_date": gettext_lazy("the date written does not exist"),
    "two_digit_year": gettext_lazy("two-digit year"),
    "contradictory": gettext_lazy("the text gives contradictory values"),
    "start_unknown": gettext_lazy("term counted from a date the text does not give"),
    "partial_date": gettext_lazy("date known only partly"),
    "perpetual": gettext_lazy("no end date: runs until terminated"),
    "unreadable_metadata": gettext_lazy("the data room's value is unreadable"),
    "not_read": gettext_lazy("not read: the document was processed before this field was"),
}


def reason_label(code: str) -> str:
    """The reason code in the active language (an unknown code is shown as is)."""
    label = _REASONS.get(code)
    return str(label) if label is not None else code


def precision_reason(precision: str) -> str:
    """Why a partial date cannot be placed against a bound: "date known only to the year"."""
    if precision == "year":
        return gettext("date known only to the year")
    if precision == "month":
        return gettext("date known only to the month")
    return reason_label("not_found")


def json_value(value: Any) -> Any:
    """A finding's value as JSON: partial dates in ISO, records as objects, labels as text."""
    if isinstance(value, PartialDate):
        return value.iso()
    if isinstance(value, Decimal):
        return str(value)
    if is_dataclass(value) and not isinstance(value, type):
        return {key: json_value(item) for key, item in asdict(value).items()}
    return value


def from_text(finding: Finding, value: Any = None) -> dict[str, Any]:
    """The record of a value read in the text (``value`` overrides the finding's own)."""
    return {
        "value": json_value(finding.value if value is None else value),
        "source": TEXT,
        "quote": finding.evidence,
        "start": finding.start,
        "end": finding.end,
        "confidence": round(finding.confidence, 2),
        "rule": finding.rule,
        "alternatives": [
            {
                "value": json_value(other.value),
                "quote": other.evidence,
                "start": other.start,
                "end": other.end,
            }
            for other in finding.alternatives
        ],
    }


# "03/05/04": which century is a guess, even in the data room's own fields.
TWO_DIGIT_YEAR = re.compile(r"\s*\d{1,2}[/.-]\d{1,2}[/.-]\d{2}\s*")


def from_metadata(value: Any, as_received: Any = None) -> dict[str, Any]:
    """The record of a data-room value; ``quote`` keeps it as received ("28 mars 2022").
    A date written with a two-digit year is only probable."""
    quote = "" if as_received is None else str(as_received)
    guessed = bool(TWO_DIGIT_YEAR.fullmatch(quote))
    record = {
        "value": json_value(value),
        "source": METADATA,
        "confidence": PROBABLE if guessed else 1.0,
        "quote": quote,
    }
    return record | {"rule": "two_digit_year"} if guessed else record


def unknown(reason: str, quote: str = "", start: int = -1) -> dict[str, Any]:
    return {"value": None, "source": "", "reason": reason, "quote": quote, "start": start}


def from_unknown(read: Unknown) -> dict[str, Any]:
    return unknown(read.reason, read.evidence, read.start)


CONFIDENCE_WORDS = {
    "certain": gettext_lazy("certain"),
    "probable": gettext_lazy("probable: check the quote"),
    "uncertain": gettext_lazy("uncertain: check the quote"),
    "unknown": gettext_lazy("unknown"),
}


def confidence_label(record: dict[str, Any]) -> str:
    """certain | probable | uncertain | unknown: how the viewer and get_contract word a
    record's confidence. A text value without a confidence (stored before confidences were
    kept) is only probable; a field with a reason is unknown."""
    if record.get("reason"):
        return "unknown"
    confidence = record.get("confidence")
    if confidence is None:
        return "certain" if record.get("source") == METADATA else "probable"
    if confidence >= CONFIDENT:
        return "certain"
    return "probable" if confidence >= PROBABLE else "uncertain"


def signature_as_known(earliest: date | None, precision: str) -> str | None:
    """The signature date as precisely as it is known: "2004", "2017-02" or "2017-02-14"."""
    if earliest is None:
        return None
    month = None if precision == "year" else earliest.month
    day = None if precision in {"year", "month"} else earliest.day
    return PartialDate(earliest.year, month, day).iso()


def governing_law_label(value: str) -> str:
    """A stored governing law in the active language ("droit anglais", "English law")."""
    if not value or (get_language() or "fr").startswith("fr"):
        return value
    return extraction.governing_law_in_english(value)


def contract_type_label(key: str) -> str:
    """A contract-type key's name in the active language ("commercial_lease" → "bail
    commercial"); a key outside the vocabulary is shown as is."""
    entry = extraction.contract_type_label(key)
    if entry is None:
        return key
    return entry.fr if (get_language() or "fr").startswith("fr") else entry.en


# Party role keys (documents.extraction.ROLES' values) in French and English.
ROLE_WORDS = {
    "licensor": ("concédant", "licensor"),
    "licensee": ("licencié", "licensee"),
    "lessor": ("bailleur", "lessor"),
    "lessee": ("preneur", "lessee"),
    "client": ("client", "client"),
    "service_provider": ("prestataire", "service provider"),
    "distributor": ("distributeur", "distributor"),
    "supplier": ("fournisseur", "supplier"),
    "manufacturer": ("fabricant", "manufacturer"),
    "franchisor": ("franchiseur", "franchisor"),
    "franchisee": ("franchisé", "franchisee"),
    "employer": ("employeur", "employer"),
    "employee": ("salarié", "employee"),
    "lender": ("prêteur", "lender"),
    "borrower": ("emprunteur", "borrower"),
    "seller": ("cédant", "seller"),
    "buyer": ("cessionnaire", "buyer"),
    "company": ("société", "company"),
    "consultant": ("consultant", "consultant"),
    "agent": ("agent", "agent"),
    "principal": ("mandant", "principal"),
    "sponsor": ("sponsor", "sponsor"),
    "guarantor": ("garant", "guarantor"),
    "developer": ("développeur", "developer"),
    "investor": ("investisseur", "investor"),
}


def role_label(key: str) -> str:
    """A party role key in the active language ("lessee" → "preneur"); unknown keys as is."""
    words = ROLE_WORDS.get(key)
    if words is None:
        return key
    return words[0] if (get_language() or "fr").startswith("fr") else words[1]


def record_from_columns(document: Document, name: str) -> dict[str, Any]:
    """The record of a field for a document read before provenance was kept (or not read
    at all): the stored value, with the source its ``*_source`` column gives, if any."""
    metadata = document.raw_metadata or {}
    value: Any
    source = ""
    if name == "contract_type":
        value = document.contract_type or None
        source = METADATA if metadata.get("contract_type") else ""
    elif name == "signature_date":
        value = signature_as_known(document.signature_earliest, document.signature_precision)
        value = value or (document.signature_date.isoformat() if document.signature_date else None)
        source = METADATA if metadata.get("signature_date") else ""
    elif name == "end_date":
        value = document.end_date.isoformat() if document.end_date else None
        source = document.end_date_source
    elif name == "governing_law":
        value, source = document.governing_law or None, document.governing_law_source
    else:
        value = None
    if value is None:
        return unknown("not_read")
    # Read before quotes and confidences were kept: shown as a value to check, never certain.
    return {
        "value": value,
        "source": source,
        "quote": "",
        "confidence": None,
        "rule": "stored_before_provenance",
    }
