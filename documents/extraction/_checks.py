"""Contradictions between a document's metadata and what its text says."""

from __future__ import annotations

from datetime import date

from django.utils.translation import gettext

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
    """Warnings for people (in the active language) where metadata and text disagree; empty
    when consistent.

    A side that is unknown (None) never produces a warning: absence is not contradiction.
    """
    warnings: list[str] = []
    text_end_date = text_end.value if text_end and isinstance(text_end.value, date) else None
    if metadata_end and text_end_date and metadata_end != text_end_date and text_end:
        message = gettext(
            "End date: metadata %(metadata)s, but the text says %(text)s (“%(evidence)s”)"
        )
        values = {
            "metadata": metadata_end.isoformat(),
            "text": text_end_date.isoformat(),
            "evidence": text_end.evidence,
        }
        warnings.append(message % values)
    if metadata_law and text_law and isinstance(text_law.value, str):
        # Unrecognised metadata is compared as written, so "droit monégasque" vs "droit
        # français" still surfaces even outside the controlled vocabulary.
        declared = normalize_governing_law(metadata_law) or metadata_law.strip().lower()
        stated = normalize_governing_law(text_law.value) or text_law.value.strip().lower()
        if declared != stated:
            message = gettext(
                "Governing law: metadata “%(metadata)s”, but the text says “%(text)s” "
                "(“%(evidence)s”)"
            )
            values = {"metadata": declared, "text": stated, "evidence": text_law.evidence}
            warnings.append(message % values)
    if metadata_signature:
        for message, end in (
            (
                gettext("End date (metadata) %(end)s before the signature %(signature)s"),
                metadata_end,
            ),
            (gettext("End date (text) %(end)s before the signature %(signature)s"), text_end_date),
        ):
            if end and end < metadata_signature:
                values = {"end": end.isoformat(), "signature": metadata_signature.isoformat()}
                warnings.append(message % values)
    return warnings
