"""Duplicate detection: fingerprints for re-uploads, MinHash LSH for near copies."""

from __future__ import annotations

from documents.duplicates import (
    DuplicateCandidate,
    find_text_duplicates,
    group_duplicates,
    minhash_signature,
    normalize_for_comparison,
    text_fingerprint,
)

CLAUSE = (
    "Le prestataire assure la maintenance corrective et évolutive des outils de supervision "
    "du réseau du client, avec une astreinte les jours ouvrés de sept heures à vingt heures. "
    "La redevance forfaitaire est payable chaque mois à terme échu sur présentation de facture. "
    "Le contrat est soumis au droit français et tout litige relève du tribunal de commerce. "
)


def test_normalization_ignores_case_accents_and_punctuation() -> None:
    assert normalize_for_comparison("  Échéance : 30 JUIN,\n2026 !") == "echeance 30 juin 2026"


def test_fingerprint_is_equal_for_reformatted_copies_only() -> None:
    assert text_fingerprint(CLAUSE) == text_fingerprint(CLAUSE.upper().replace(" ", "\n "))
    assert text_fingerprint(CLAUSE) != text_fingerprint(CLAUSE + " Annexe.")


def test_minhash_signature_is_deterministic_and_sized() -> None:
    signature = minhash_signature(CLAUSE, num_perm=64)
    assert len(signature) == 64
    assert signature == minhash_signature(CLAUSE, num_perm=64)


def test_exact_reupload_is_one_exact_group_not_repeated_as_near() -> None:
    docs = {"c19": CLAUSE, "c11": CLAUSE.replace(" ", "  "), "c02": "Bail commercial " * 40}
    assert find_text_duplicates(docs) == [
        DuplicateCandidate(frozenset({"c11", "c19"}), "exact", 1.0)
    ]


def test_near_copies_are_grouped_transitively() -> None:
    long_text = CLAUSE * 4
    docs = {
        "a": long_text,
        "b": long_text + " Fait à Lille en deux exemplaires.",
        "c": long_text + " Fait à Lille en deux exemplaires. Paraphe.",
        "d": "Software license agreement between two unrelated companies. " * 10,
    }
    groups = find_text_duplicates(docs, threshold=0.8)
    assert [(group.ids, group.kind) for group in groups] == [(frozenset({"a", "b", "c"}), "near")]
    assert 0.8 <= groups[0].score < 1.0


def test_empty_texts_are_never_duplicates() -> None:
    assert find_text_duplicates({"x": "", "y": "  \n", "z": CLAUSE}) == []


def test_stored_fingerprints_and_signatures_group_like_raw_texts() -> None:
    long_text = CLAUSE * 4
    texts = {"a": long_text, "b": long_text + " Paraphe.", "c": long_text}
    groups = group_duplicates(
        fingerprints={ref: text_fingerprint(text) for ref, text in texts.items()},
        signatures={ref: minhash_signature(text) for ref, text in texts.items()},
    )
    assert groups == find_text_duplicates(texts)
    assert [(group.ids, group.kind) for group in groups] == [
        (frozenset({"a", "c"}), "exact"),
        (frozenset({"a", "b", "c"}), "near"),
    ]
