"""Contradictions between a document's metadata and what its text says."""

from __future__ import annotations

from datetime import date

from ._common import Finding
from ._law import normalize_governing_law


def find_contradictions(
    *,
    metadata_end: date | None,
    text_end: Finding | None,
    metadata_law: str | None,
    text_law: Finding | None,
    metadata_signature: date | None = None,
) -> list[str]:
    """Human-readable warnings where metadata and text disagree; empty when consistent.

    A side that is unknown (None) never produces a warning: absence is not contradiction.
    """
    warnings: list[str] = []
    text_end_date = text_end.value if text_end and isinstance(text_end.value, date) else None
    if metadata_end and text_end_date and metadata_end != text_end_date and text_end:
        warnings.append(
            f"Date de fin : métadonnées {metadata_end.isoformat()}, mais le texte indique "
            f"{text_end_date.isoformat()} (« {text_end.evidence} »)"
        )
    if metadata_law and text_law and isinstance(text_law.value, str):
        # Unrecognised metadata is compared as written, so "droit monégasque" vs "droit
        # français" still surfaces even outside the controlled vocabulary.
        declared = normalize_governing_law(metadata_law) or metadata_law.strip().lower()
        stated = normalize_governing_law(text_law.value) or text_law.value.strip().lower()
        if declared != stated:
            warnings.append(
                f"Droit applicable : métadonnées « {declared} », mais le texte indique "
                f"« {stated} » (« {text_law.evidence} »)"
            )
    if metadata_signature:
        for label, end in (("métadonnées", metadata_end), ("texte", text_end_date)):
            if end and end < metadata_signature:
                warnings.append(
                    f"Date de fin ({label}) {end.isoformat()} antérieure à la signature "
                    f"{metadata_signature.isoformat()}"
                )
    return warnings
