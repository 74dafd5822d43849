"""A keyword rule finds its terms as words (any case, accents and spacing), not inside
other words."""

from __future__ import annotations

import numpy as np

from compliance.checks import Article, RuleView, check_contract

ABSENT = RuleView("moyens", "Moyens de paiement", "", "keyword",
                  {"terms": ["chèque", "traite", "droit français"], "must": "absent"})  # fmt: skip


def _found(text: str) -> list[str]:
    article = Article(1, "", "", 1, text, frozenset())
    outcome = check_contract([ABSENT], [article], encode=np.asarray, ask=None)
    return [finding.reason for finding in outcome.findings]


def test_a_term_inside_another_word_is_not_found():
    assert _found("Le traitement automatisé des données est confié au Prestataire.") == []


def test_a_term_is_found_as_a_word_whatever_its_case_accents_and_spacing():
    [reason] = _found("Paiement par Traite, par cheque ou selon le Droit  Français.")
    assert "chèque" in reason and "traite" in reason and "droit français" in reason
