"""A flag's reason names the clause type and the quantity in words, never their keys."""

from __future__ import annotations

from django.utils import translation

from compliance.articles import RuleView
from compliance.checks import _quantity_words, _type_words
from documents.clause_types import clause_type_label


def test_a_flag_reason_names_the_clause_type_and_quantity_in_words():
    rule = RuleView(key="r", title="R", clause_type="cap_on_liability", kind="required", params={})
    with translation.override("en"):
        words = _type_words(rule)
        assert "_" not in words and words == clause_type_label("cap_on_liability").lower()
        assert _quantity_words("months") == "duration in months"
    with translation.override("fr"):
        assert "_" not in _type_words(rule) and _quantity_words("months") == "durée en mois"
    custom = RuleView(key="r", title="R", clause_type="earn_out", kind="required", params={})
    assert _type_words(custom) == "earn out"
