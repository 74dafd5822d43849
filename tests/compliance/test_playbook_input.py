"""A malformed playbook is a list of problems (PlaybookInvalid, shown with status 400), never an
exception from deeper down (a 500 on the admin's import page)."""

from __future__ import annotations

import math
from typing import Any

import pytest
import yaml
from django.utils import translation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compliance.playbooks import PARAMS, PlaybookInvalid, parse_playbook

HEAD = "key: k\ntitle: T\nrules:\n"
THRESHOLD = "{key: r, kind: threshold, severity: low, clause_type: cap_on_liability, quantity: days"


def _refused(text: str) -> str:
    with translation.override("en"), pytest.raises(PlaybookInvalid) as invalid:
        parse_playbook(text)
    return str(invalid.value)


@pytest.mark.parametrize("name", ["1", "null", "2.5", "true"])
def test_a_rule_field_that_is_not_text_is_named_as_unknown(name):
    rule = f"  - {{key: r, kind: required, severity: low, clause_type: insurance, {name}: 2}}\n"
    assert "unknown fields: " in _refused(HEAD + rule)


def test_a_clause_type_field_that_is_not_text_is_named_as_unknown():
    text = (
        "key: k\ntitle: T\nclause_types:\n  - {key: mine, label: M, examples: [x], 1: 2, null: 3}\n"
        "rules:\n  - {key: r, kind: required, severity: low, clause_type: mine}\n"
    )
    assert "unknown fields: 1, None" in _refused(text)


def test_a_number_of_more_than_4300_digits_is_refused_as_unreadable():
    text = HEAD + f"  - {THRESHOLD}, op: '<=', value: {'9' * 5000}}}\n"
    assert "a number or a date that cannot be read" in _refused(text)


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf", "1.0e+999", "9" * 400])
def test_a_threshold_that_is_no_finite_number_is_refused(value):
    # 400 digits is a valid int that no float holds: the scan's float() would overflow.
    assert "value must be a number" in _refused(
        HEAD + f"  - {THRESHOLD}, op: '<=', value: {value}}}\n"
    )


@pytest.mark.parametrize("value", [".nan", ".inf"])
def test_a_clause_type_threshold_that_is_no_finite_number_is_refused(value):
    text = (
        f"key: k\ntitle: T\nclause_types:\n  - {{key: mine, label: M, examples: [x], "
        f"threshold: {value}}}\nrules:\n  - {{key: r, kind: required, severity: low, "
        "clause_type: mine}\n"
    )
    assert "threshold: a number between 0 and 1" in _refused(text)


@pytest.mark.parametrize("fallbacks", ["5", "{a: b}", "x"])
def test_position_fallbacks_that_are_no_list_are_refused(fallbacks):
    rule = (
        "  - {key: r, kind: position, severity: low, clause_type: insurance, preferred: x, "
        f"fallbacks: {fallbacks}}}\n"
    )
    assert "fallbacks: a list of wordings" in _refused(HEAD + rule)


@pytest.mark.parametrize("field", ["kind: []", "kind: {a: 1}", "severity: [high]"])
def test_a_kind_or_severity_that_is_a_list_or_mapping_is_refused(field):
    base = {"kind": "kind: required", "severity": "severity: low"}
    base[field.split(":")[0]] = field
    rule = f"  - {{key: r, clause_type: insurance, {base['kind']}, {base['severity']}}}\n"
    assert "must be one of" in _refused(HEAD + rule)


@pytest.mark.parametrize("text", ["x: !!int abc\n", "x: 2001-13-45\n", "x: !!float y\n"])
def test_a_value_the_yaml_constructor_cannot_make_is_refused(text):
    assert "cannot be read" in _refused(text)


def test_a_position_rule_whose_wordings_are_not_text_is_refused():
    rule = "  - {key: r, kind: position, severity: low, clause_type: insurance, preferred: [x]}\n"
    assert "preferred: the firm's wording is required" in _refused(HEAD + rule)


# --- Fuzz: whatever the file holds, parse_playbook answers a spec or PlaybookInvalid -------

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**300, max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(
        [
            "required",
            "regex",
            "threshold",
            "position",
            "llm",
            "keyword",
            "high",
            "appear",
            "days",
            "<=",
            "insurance",
            "mine",
            "[",
            "(a+)+$",
        ]
    ),
)
_KEYS = st.one_of(
    st.sampled_from(
        sorted(
            {
                "key",
                "title",
                "clause_type",
                "kind",
                "severity",
                "explanation",
                "label",
                "examples",
                "cue",
                "threshold",
                *(name for names in PARAMS.values() for name in names),
            }
        )
    ),
    st.text(max_size=6),
    st.integers(),
    st.none(),
    st.booleans(),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=6),
    max_leaves=20,
)
_RULE = st.dictionaries(_KEYS, _VALUES, max_size=8)
_PLAYBOOK = st.fixed_dictionaries(
    {"key": st.sampled_from(["k", "", 5]), "title": st.sampled_from(["T", None])},
    optional={
        "rules": st.lists(_RULE | _VALUES, max_size=4) | _VALUES,
        "clause_types": st.lists(_RULE | _VALUES, max_size=3) | _VALUES,
        "language": _VALUES,
        "description": _VALUES,
    },
)


def _answer(text: str) -> None:
    try:
        parse_playbook(text)
    except PlaybookInvalid as invalid:
        assert invalid.problems  # every refusal says why


def _yaml(data: Any) -> str:
    # PyYAML writes NaN and infinities as .nan and .inf, and keys of any scalar type.
    return str(yaml.safe_dump(data, allow_unicode=True))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_PLAYBOOK)
def test_fuzz_any_playbook_shape_is_a_spec_or_its_problems(data):
    _answer(_yaml(data))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.text(
        alphabet=st.sampled_from(list("ab:-[]{},'\"!&*?|>#%@ \n\t.0123456789enul")), max_size=80
    )
)
def test_fuzz_any_text_is_a_spec_or_its_problems(text):
    _answer(HEAD + text)
    _answer(text)


def test_a_finite_threshold_still_loads():
    spec = parse_playbook(HEAD + f"  - {THRESHOLD}, op: '<=', value: 45.5}}\n")
    assert math.isclose(spec.rules[0].params["value"], 45.5)
