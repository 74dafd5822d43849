from __future__ import annotations

from datetime import date

from core.normalize import fold_accents, iso_date
from documents.duplicates import normalize_for_comparison


def test_fold_accents_strips_latin_accents_and_expands_ligatures_keeping_case():
    assert fold_accents("Brénalys ŒUVRE cœur") == "Brenalys OEUVRE coeur"
    assert fold_accents("Brénalys", casefold=True) == "brenalys"


def test_fold_accents_keeps_non_latin_marks():
    assert fold_accents("हिन्दी") == "हिन्दी"


def test_duplicate_fingerprints_and_queries_fold_the_same_way():
    # "œuvre" typed without the ligature finds the same fingerprint words.
    assert normalize_for_comparison("Main-d'œuvre") == normalize_for_comparison("main d oeuvre")


def test_iso_date_reads_unknown_as_none():
    assert iso_date(date(2024, 3, 1)) == "2024-03-01"
    assert iso_date(None) is None
