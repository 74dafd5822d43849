"""One reading of a contract's text: every metadata field, each with where it was found.

The ingestion pipeline and ``eval_metadata`` both call :func:`read_contract`, so the numbers
the evaluation reports are those of the product.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ._amounts import Amount, extract_amounts
from ._common import Finding, Unknown
from ._contract_dates import agreement_date, effective_date
from ._expiration import expiration, renewal
from ._identifiers import extract_identifiers
from ._law import governing_law_from_text
from ._partial import PartialDate
from ._party_finder import extract_parties
from ._types import contract_type_from_text

Read = Finding | Unknown


@dataclass(frozen=True)
class ContractReading:
    """What the text says, field by field: a :class:`Finding` (value, quote, span, confidence)
    or an :class:`Unknown` with the reason."""

    contract_type: Read
    agreement_date: Read
    effective_date: Read
    expiration: Read
    renewal: Read
    governing_law: Read
    parties: list[Finding] = field(default_factory=list)
    identifiers: list[Finding] = field(default_factory=list)
    amounts: list[Amount] = field(default_factory=list)


def _date_of(read: Read) -> PartialDate | None:
    return read.value if isinstance(read, Finding) and isinstance(read.value, PartialDate) else None


# End dates counted from the start we pass in: they are no surer than that start.
_COUNTED_FROM_START = frozenset({"duration_from_signature", "year_end_of_start"})


def _no_surer_than_its_start(expires: Read, start: Read) -> Read:
    if (
        isinstance(expires, Finding)
        and isinstance(start, Finding)
        and expires.rule in _COUNTED_FROM_START
        and start.confidence < expires.confidence
    ):
        return replace(expires, confidence=start.confidence)
    return expires


def read_contract(text: str) -> ContractReading:
    """Every field the text states. Never raises; a field it does not state is Unknown."""
    signed = agreement_date(text)
    effective = effective_date(text, _date_of(signed))
    # A term runs from the effective date; failing that, from the signature.
    start_read = effective if _date_of(effective) else signed
    start = _date_of(start_read)
    law = governing_law_from_text(text)
    return ContractReading(
        contract_type=contract_type_from_text(text),
        agreement_date=signed,
        effective_date=effective,
        expiration=_no_surer_than_its_start(expiration(text, start), start_read),
        renewal=renewal(text),
        governing_law=law if law is not None else Unknown("not_found"),
        parties=extract_parties(text),
        identifiers=extract_identifiers(text),
        amounts=extract_amounts(text),
    )


# An extension point for a later, slower reader (an LLM with quote verification): it gets the
# text and the names of the fields the rules left unknown, and answers findings whose quotes
# must appear in the text word for word (see documents.services). None is installed here.
Fallback = Callable[[str, list[str]], dict[str, Finding]]
