"""The metadata step's extension point: a slower reader for the fields the rules left unknown.

``LEXROOM_METADATA_FALLBACK`` names a callable ``(text, missing_fields) -> {field: Finding}``
(see :data:`documents.extraction.Fallback`); none is installed by default. Its answers are
trusted only as far as their quotes: an answer whose quote is not in the text word for word
(whitespace aside) is dropped and logged, so a model cannot invent a date the contract does
not contain. Kept answers are never shown as certain.
"""

from __future__ import annotations

import dataclasses
import logging
import re

from django.conf import settings
from django.utils.module_loading import import_string

from documents.extraction import ContractReading, Fallback, Finding, Unknown

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
_SPACES = re.compile(r"\s+")


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
    except Exception:
        # A fallback is optional help: its failure leaves the rules' reading as it was.
        logger.exception("metadata fallback failed; keeping the rules' reading")
        return reading
    filled: dict[str, Finding] = {}
    for name, answer in answers.items():
        span = quote_span(text, answer.evidence) if name in missing else None
        if span is None:
            logger.warning("metadata fallback answer for %s dropped: quote not in the text", name)
            continue
        filled[name] = dataclasses.replace(
            answer,
            evidence=_SPACES.sub(" ", answer.evidence).strip(),
            start=span[0],
            end=span[1],
            rule=f"fallback:{answer.rule}",
            confidence=min(answer.confidence, MAX_CONFIDENCE),
        )
    return dataclasses.replace(reading, **filled) if filled else reading  # type: ignore[arg-type]
