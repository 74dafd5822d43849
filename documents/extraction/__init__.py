"""Pure metadata extraction from contract text: dates, governing law, parties, amounts,
amendments, contract types, French company identifiers and metadata/text contradictions.
No Django, no database: plain functions that the ingestion pipeline calls and the benchmarks
run over CUAD. :func:`read_contract` reads every field at once, as the pipeline does."""

from __future__ import annotations

from ._amendments import AmendmentInfo, detect_amendment
from ._amounts import Amount, extract_amounts
from ._checks import find_contradictions
from ._common import Finding, Unknown, collapse_whitespace, normalize_contract_type
from ._contract_dates import agreement_date, effective_date
from ._dates import find_dates, parse_date
from ._expiration import Expiration, expiration
from ._identifiers import Identifier, extract_identifiers
from ._law import governing_law_from_text, governing_law_in_english, normalize_governing_law
from ._partial import PartialDate, Precision
from ._parties import display_name, entity_key, normalize_siren, siren_is_valid
from ._party_finder import Party, extract_parties, extract_parties_from_text
from ._reading import ContractReading, Fallback, read_contract
from ._renewal import Renewal, renewal
from ._roles import ROLES, role_for_term
from ._terms import derive_end_date
from ._types import (
    CONTRACT_TYPES,
    ContractType,
    ContractTypeLabel,
    contract_type_family,
    contract_type_from_text,
    contract_type_key,
    contract_type_label,
    same_contract_family,
)

__all__ = [
    "CONTRACT_TYPES",
    "ROLES",
    "AmendmentInfo",
    "Amount",
    "ContractReading",
    "ContractType",
    "ContractTypeLabel",
    "Expiration",
    "Fallback",
    "Finding",
    "Identifier",
    "PartialDate",
    "Party",
    "Precision",
    "Renewal",
    "Unknown",
    "agreement_date",
    "collapse_whitespace",
    "contract_type_family",
    "contract_type_from_text",
    "contract_type_key",
    "contract_type_label",
    "derive_end_date",
    "detect_amendment",
    "display_name",
    "effective_date",
    "entity_key",
    "expiration",
    "extract_amounts",
    "extract_identifiers",
    "extract_parties",
    "extract_parties_from_text",
    "find_contradictions",
    "find_dates",
    "governing_law_from_text",
    "governing_law_in_english",
    "normalize_contract_type",
    "normalize_governing_law",
    "normalize_siren",
    "parse_date",
    "read_contract",
    "renewal",
    "role_for_term",
    "same_contract_family",
    "siren_is_valid",
]
