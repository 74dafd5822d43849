"""The metadata step's extension point: a slower reader for the fields the rules left unknown.

``LEXROOM_METADATA_FALLBACK`` names a callable ``(text, missing_fields) -> {field: Finding}``
(see :data:`documents.extraction.Fallback`); none is installed by default. Its answers are
trusted only as far as their quotes: an answer whose quote is not in the text word for word
(whitespace aside) is dropped and logged, so a model cannot invent a date the contract does
not contain. Kept answers are never shown as certain; a date must be one its quote states.
"""

from __future__ import annotations

import dataclasses
import logging
import re

from django.conf import settings
from django.utils.module_loading import import_string

from documents.extraction import (
    ContractReading,
    ContractType,
    Expiration,
    Fallback,
    Finding,
    PartialDate,
    Renewal,
    Unknown,
    find_dates,
)

logger = logging.getLogger(__name__)

# The fields a fallback may fill: those of ContractReading that hold one value.
FILLABLE = (
    "contract_type",
    "agreement_date",
    "effective_date",
    "expiration",
    "renewal",
    "governing_law",
)
# A fallback's answer is at most "probable" (documents.provenance.CONFIDENT is 0.85).
MAX_CONFIDENCE = 0.7
# A quote as short as "the" or "2020" is found in any contract and supports nothing.
MIN_QUOTE_CHARS = 12
_SPACES = re.compile(r"\s+")
_VALUE_TYPES: dict[str, type | tuple[type, ...]] = {
    "contract_type": ContractType,
    "agreement_date": PartialDate,
    "effective_date": PartialDate,
    "expiration": Expiration,
    "renewal": Renewal,
    "governing_law": str,
}
_DATE_FIELDS = frozenset({"agreement_date", "effective_date"})


def configured_fallback() -> Fallback | None:
    path = settings.LEXROOM_METADATA_FALLBACK
    return import_string(path) if path else None


def quote_span(text: str, quote: str) -> tuple[int, int] | None:
    """Where ``quote`` stands in ``text``, whitespace runs compared as one space; None if not."""
    words = quote.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(word) for word in words)
    match = re.search(pattern, text)
    return match.span() if match else None


def with_fallback(reading: ContractReading, text: str) -> ContractReading:
    """``reading`` with the unknown fields the configured fallback could support by a quote."""
    fallback = configured_fallback()
    missing = [name for name in FILLABLE if isinstance(getattr(reading, name), Unknown)]
    if fallback is None or not missing:
        return reading
    try:
        answers = fallback(text, missing)
        filled = {
            name: kept
            for name, answer in dict(answers).items()
            if (kept := _checked(name, answer, missing, text)) is not None
        }
    except Exception:
        # A fallback is optional help: its failure leaves the rules' reading as it was.
        logger.exception("metadata fallback failed; keeping the rules' reading")
        return reading
    return dataclasses.replace(reading, **filled) if filled else reading  # type: ignore[arg-type]


def _checked(name: str, answer: object, missing: list[str], text: str) -> Finding | None:
    """The answer as a finding the product may keep, or None (logged) when it is not one:
    a field that was not missing, not a Finding, a value of the wrong kind, a quote that is
    not in the text, or a date the quote does not contain."""
    if name not in missing or not isinstance(answer, Finding):
        logger.warning("metadata fallback answer for %s dropped: not asked or not a finding", name)
        return None
    expected = _VALUE_TYPES.get(name)
    quote = _SPACES.sub(" ", str(answer.evidence)).strip()
    span = quote_span(text, quote) if len(quote) >= MIN_QUOTE_CHARS else None
    dated = name not in _DATE_FIELDS or _quote_holds_date(quote, answer.value)
    if expected is None or not isinstance(answer.value, expected) or span is None or not dated:
        logger.warning(
            "metadata fallback answer for %s dropped: its quote does not support it", name
        )
        return None
    return dataclasses.replace(
        answer,
        evidence=quote,
        start=span[0],
        end=span[1],
        rule=f"fallback:{answer.rule}",
        confidence=min(float(answer.confidence), MAX_CONFIDENCE),
        alternatives=(),
    )


def _quote_holds_date(quote: str, value: object) -> bool:
    """A date answer must be a date its own quote states (at the answer's precision)."""
    if not isinstance(value, PartialDate):
        return False
    return any(
        PartialDate.of(found).earliest >= value.earliest
        and PartialDate.of(found).latest <= value.latest
        for found, _, _ in find_dates(quote)
    )
