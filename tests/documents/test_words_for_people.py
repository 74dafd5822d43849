"""What a lawyer reads names things in words: no vocabulary key (end_date, cap_on_liability,
commercial_lease) and no French law name on an English page."""

from __future__ import annotations

from django.utils import translation

from documents.templatetags.document_facts import field_labels, law_label

LAWS = {
    "droit anglais": "English law",
    "droit new-yorkais": "New York law",
    "droit de l'État de Texas": "Texas law",
    "droit fédéral américain": "US federal law",
}


def test_a_stored_law_reads_in_the_page_s_language():
    for stored, english in LAWS.items():
        with translation.override("en"):
            assert law_label(stored) == english
        with translation.override("fr"):
            assert law_label(stored) == stored
    with translation.override("en"):
        assert law_label("droit martien") == "droit martien"  # outside the vocabulary: as is
        assert law_label(None) == ""


def test_unknown_fields_are_named_in_words():
    with translation.override("en"):
        assert field_labels(["end_date", "signature_date", "governing_law"]) == [
            "end date",
            "signature date",
            "governing law",
        ]
    with translation.override("fr"):
        assert field_labels(["end_date"]) == ["date de fin"]
