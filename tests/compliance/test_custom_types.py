"""A playbook's own clause types: validated, learnt from examples (the bar follows the model's
scale), found by their cue or by the stored embeddings, and used by rules like any type."""

from __future__ import annotations

import numpy as np
import pytest

from agents.tools import call_tool
from compliance.articles import Article, RuleView
from compliance.checks import check_contract
from compliance.custom_types import custom_types, learnt_threshold
from compliance.playbooks import PlaybookInvalid, parse_playbook
from compliance.scanning import playbook_custom_types
from compliance.services import playbook_assign, playbook_import
from core.embeddings import get_encoder
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
    # Taxonomy vectors of another encoder's size cannot compete: the examples' bar decides.
    other_size = np.ones((3, 8), dtype=np.float32)
    entry = {"key": "k", "examples": ["a"]}
    [alone] = custom_types([entry], lambda _: examples[:1], other_size).values()
    assert alone.rivals is None and alone.threshold == 0.5


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


# Ours, not a dataset's: a firm's payment-terms type, French clauses of other kinds, and a
# payment clause that is none of the examples.
PAYMENT = {
    "key": "paiement",
    "examples": [
        "Les factures sont réglées par virement bancaire dans les quarante-cinq jours de leur "
        "émission.",
        "Les prestations sont facturées chaque mois et payées à trente jours date de facture.",
        "Tout retard de paiement donne lieu à des pénalités et à une indemnité forfaitaire de "
        "recouvrement.",
        "Le prix est payable au Prestataire à réception de sa facture, par virement.",
    ],
}
UNRELATED = [  # of kinds the taxonomy knows: governing law, no-solicitation, cap on liability
    "Le présent contrat est régi par le droit français ; tout litige relève des tribunaux de "
    "Paris.",
    "Le Client s'interdit d'embaucher tout salarié du Prestataire ayant participé aux "
    "prestations, pendant un an après la fin du contrat.",
    "Le Prestataire est responsable des seuls dommages directs causés au Client, dans la "
    "limite des sommes perçues au titre du contrat.",
]
OWN_KIND = (
    "Le Client paie chaque facture du Prestataire par virement, dans un délai de trente jours "
    "suivant sa date d'émission."
)


def _encoded(text: str) -> Article:
    vector = np.asarray(get_encoder().encode([text]), dtype=np.float32)[0]
    return Article(1, "", "", 1, text, frozenset(), vector)


def test_a_custom_type_matches_its_kind_not_other_clauses_with_the_packaged_model():
    # The packaged English MiniLM puts all French text close together: the examples' own bar
    # (leave one out) lets every clause here in; the taxonomy's types, nearer, keep them out.
    [kind] = playbook_custom_types([PAYMENT]).values()
    assert kind.rivals is not None
    assert [text[:30] for text in UNRELATED if kind.matches(_encoded(text))] == []
    assert kind.matches(_encoded(OWN_KIND))


def test_a_threshold_set_by_the_playbook_is_kept_as_its_bar():
    [kind] = playbook_custom_types([{**PAYMENT, "threshold": -1.0}]).values()
    assert kind.rivals is None and kind.threshold == -1.0
    assert all(kind.matches(_encoded(text)) for text in UNRELATED)


DAYS_RULE = RuleView("delai", "Délai", "paiement", "threshold",
                     {"quantity": "days", "op": "<=", "value": 45})  # fmt: skip


def _threshold_reasons(text: str, cue: str | None) -> list[str]:
    near = np.asarray([1.0, 0.0], dtype=np.float32)
    entry = {"key": "paiement", "examples": ["a", "b"], "cue": cue}
    types = custom_types([entry], lambda _: np.asarray([near, near]))
    article = Article(1, "", "", 1, text, frozenset(), near)
    outcome = check_contract([DAYS_RULE], [article], encode=np.asarray, ask=None, custom=types)
    return [finding.reason for finding in outcome.findings]


def test_a_clause_found_by_closeness_alone_without_the_quantity_is_not_flagged():
    assert _threshold_reasons("Les modalités figurent aux conditions particulières.", None) == []
    # Its quantity is still read and checked.
    assert len(_threshold_reasons("Le paiement intervient à 60 jours.", None)) == 1


def test_a_clause_the_cue_finds_without_the_quantity_is_read_by_hand():
    [reason] = _threshold_reasons("Paiement : selon les conditions particulières.", "paiement")
    assert "by hand" in reason or "à la main" in reason
