"""A playbook's own clause types: validated, learnt from examples (the bar follows the model's
scale), found by their cue or by the stored embeddings, and used by rules like any type."""

from __future__ import annotations

import numpy as np
import pytest

from agents.tools import call_tool
from compliance.articles import Article
from compliance.checks import custom_types, learnt_threshold
from compliance.playbooks import PlaybookInvalid, parse_playbook
from compliance.services import playbook_assign, playbook_import
from workspaces.tenancy import firm_scope, workspace_scope

pytestmark = pytest.mark.django_db

PLAYBOOK = """
key: gap
title: Garanties
clause_types:
  - key: garantie_de_passif
    label: Garantie d'actif et de passif
    examples: ["Le cédant garantit le cessionnaire contre tout passif antérieur à la cession."]
    cue: "GARANTIE"
rules:
  - key: gap-presente
    title: Garantie de passif à lire
    clause_type: garantie_de_passif
    kind: prohibited
    severity: medium
"""


def test_a_custom_type_is_validated_like_the_rest():
    bad = PLAYBOOK.replace("key: garantie_de_passif", "key: exclusivity").replace(
        'cue: "GARANTIE"', 'cue: "("'
    )
    with pytest.raises(PlaybookInvalid) as invalid:
        parse_playbook(bad)
    text = str(invalid.value)
    assert "exclusivity" in text and "cue" in text
    assert "garantie_de_passif" in text  # the rule now names a type that does not exist


def test_the_bar_is_learnt_from_the_examples_whatever_the_scale():
    rng = np.random.default_rng(0)
    base = rng.normal(size=16)
    examples = np.asarray([base + rng.normal(scale=s, size=16) for s in (0.2, 0.3, 0.4)])
    examples /= np.linalg.norm(examples, axis=1, keepdims=True)
    threshold = learnt_threshold(examples)
    assert 0.5 < threshold < 1.0
    [kind] = custom_types([{"key": "k", "examples": ["a", "b", "c"]}], lambda _: examples).values()
    near = Article(1, "", "", 1, "x", frozenset(), examples[0])
    far = Article(2, "", "", 1, "y", frozenset(), -examples[0])
    assert kind.matches(near) and not kind.matches(far)


def test_a_rule_on_a_custom_type_flags_the_article_it_finds(brenalis_room, settings):
    settings.OLLAMA_URL = "http://127.0.0.1:9"
    firm, workspace = brenalis_room.workspace.firm, brenalis_room.workspace
    with firm_scope(firm.pk):
        playbook, _ = playbook_import(firm=firm, spec=parse_playbook(PLAYBOOK))
    with workspace_scope(workspace):
        playbook_assign(workspace=workspace, key=playbook.key)
    result = call_tool(
        name="scan_contract",
        user=brenalis_room.owner,
        via="cli",
        arguments={"workspace": workspace.slug, "playbook": "gap"},
    ).content
    assert result["scans"][0]["flags_raised"] >= 1
    flags = call_tool(
        name="list_flags",
        user=brenalis_room.owner,
        via="cli",
        arguments={"workspace": workspace.slug, "contract_id": "c14"},
    ).content
    assert [f["rule"] for f in flags["flags"]] == ["gap-presente"]


def test_a_cue_reads_the_text_of_an_article_whose_heading_has_no_words():
    entry = {"key": "k", "examples": ["a"], "cue": "GARANTIE"}
    [kind] = custom_types([entry], lambda _: np.ones((1, 4))).values()
    text = "GARANTIE de passif : le cédant garantit le cessionnaire."
    # A paragraph's "§ 3" or an untitled "4" says nothing; a title is read instead of the text.
    assert kind.matches(Article(1, "§ 3", "", 1, text, frozenset()))
    assert kind.matches(Article(2, "4", "4", 1, text, frozenset()))
    assert not kind.matches(Article(3, "Article 3 — Prix", "3", 1, text, frozenset()))
