"""The rule checks on one contract's articles: pure functions over what ingestion stored.

An article is "of" a clause type when the classifier tagged it so at ingestion (the chunk's
``clause_type_keys``); in a workspace not tagged yet, a heading that names the type (the
taxonomy's cues) counts instead. Position rules compare the rule's wordings (encoded once per
process) with the stored chunk embedding and with the clause's own text and first windows
(encoded in one batch per rule and contract: at most 1 + POSITION_WINDOWS texts per article).
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.utils.translation import gettext, pgettext_lazy

from compliance.articles import Article, Finding, RuleView
from compliance.custom_types import CustomType
from compliance.models import RuleKind
from compliance.patterns import PatternClock, PatternRefused, PatternTooSlow, pattern_compile
from compliance.quantities import COMPARE, fold, quantities
from documents.clause_types import clause_type_label, heading_names, windows

EXCERPT_CHARS = 400
# A stored embedding at least this close to a wording matches it (cosine, normalised vectors).
POSITION_MATCH = 0.80
UNACCEPTABLE_MATCH = 0.85


@dataclass
class Timings:
    """Where a scan's seconds go (``bench_compliance``): reading the articles, classifying
    (``of_type``: stored tags or heading cues), the rule checks, storing the flags."""

    read: float = 0.0
    classify: float = 0.0
    rules: float = 0.0
    store: float = 0.0


@dataclass
class Outcome:
    findings: list[Finding] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # why a rule was not checked
    too_slow: list[str] = field(default_factory=list)  # regex rules past their time, or refused


def of_type(
    articles: list[Article],
    clause_type: str,
    custom: dict[str, CustomType] | None = None,
    clock: PatternClock | None = None,
    presence: Mapping[str, float] | None = None,
) -> list[Article]:
    """The articles of ``clause_type``: a playbook's own type by its examples; else those
    tagged with at least the type's ``presence`` confidence (the classifier's contract-level
    bar; none given: every tagged one), or whose heading names the type."""
    if custom and clause_type in custom:
        return [a for a in articles if custom[clause_type].matches(a, clock)]
    if any(a.types for a in articles):
        bar = (presence or {}).get(clause_type, 0.0)
        return [
            a
            for a in articles
            if clause_type in a.types
            and (
                a.confidences.get(clause_type, 1.0) >= bar or heading_names(clause_type, a.heading)
            )
        ]
    # An untagged workspace: headings only.
    return [a for a in articles if heading_names(clause_type, a.heading)]


# --- The checks --------------------------------------------------------------------------

Encode = Callable[[list[str]], Any]


def _word_in(term: str, text: str) -> bool:
    """Whether ``term`` (words or a phrase) stands in ``text`` as words: "traite" (a bill of
    exchange) is not in "traitement". An escaped literal: linear in the text."""
    return re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text) is not None


def _terms_found(rule: RuleView, article: Article) -> list[str]:
    if rule.kind == RuleKind.KEYWORD:
        text = fold(article.text)
        return [t for t in rule.params["terms"] if _word_in(fold(t), text)]
    try:
        pattern = pattern_compile(rule.params["pattern"])
    except PatternRefused:
        raise PatternTooSlow(rule.key) from None
    return [m.group(0) for m in itertools.islice(pattern.finditer(article.text), 3)]


def _text_rule(rule: RuleView, scope: list[Article], clock: PatternClock) -> list[Finding]:
    must_appear = rule.params["must"] == "appear"
    hits = {}
    for article in scope:
        if rule.kind == RuleKind.REGEX:  # timed: the contract's budget is shared
            hits[article.chunk_id] = clock.run(rule.key, _terms_found, rule, article)
        else:
            hits[article.chunk_id] = _terms_found(rule, article)
    if must_appear:
        if scope and not any(hits.values()):
            what = ", ".join(rule.params.get("terms") or [rule.params.get("pattern", "")])
            reason = gettext("None of %(terms)s appears in the clause.") % {"terms": what}
            return [Finding(rule, scope[0], reason)]
        return []
    return [
        Finding(
            rule, a, gettext("The clause says %(found)s.") % {"found": ", ".join(hits[a.chunk_id])}
        )
        for a in scope
        if hits[a.chunk_id]
    ]


# What a threshold rule measures, as a lawyer reads it in a flag's reason.
_QUANTITY_WORDS = {
    "days": pgettext_lazy("quantity", "duration in days"),
    "months": pgettext_lazy("quantity", "duration in months"),
    "years": pgettext_lazy("quantity", "duration in years"),
    "percent": pgettext_lazy("quantity", "percentage"),
    "amount": pgettext_lazy("quantity", "amount"),
}


def _quantity_words(quantity: str) -> str:
    return str(_QUANTITY_WORDS.get(quantity, quantity))


def _type_words(rule: RuleView) -> str:
    """The rule's clause type in words, lower-case inside a sentence ("No cap on liability
    clause was found"), never its key."""
    label = clause_type_label(rule.clause_type or "")
    return label[:1].lower() + label[1:] if label[1:2].islower() else label


def _threshold(rule: RuleView, scope: list[Article], kind: CustomType | None) -> list[Finding]:
    """Each article's quantities against the limit. An article of a firm's ``kind`` found by
    closeness alone, its cue unmatched, that states no such quantity is left alone: the type
    was a guess, and a clause without the quantity more likely is not of it ("check it by
    hand" would be noise); one with a quantity is still checked."""
    quantity, op, limit = rule.params["quantity"], rule.params["op"], float(rule.params["value"])
    findings = []
    for article in scope:
        found = quantities(article.text, quantity)
        if not found and kind is not None and not kind.cued(article):
            continue  # the cue already ran on it in the scope, within the contract's time
        if not found:
            reason = gettext("No %(quantity)s could be read in the clause: check it by hand.")
            findings.append(
                Finding(rule, article, reason % {"quantity": _quantity_words(quantity)})
            )
            continue
        worst = max(found) if op in {"<=", "<"} else min(found)
        if not COMPARE[op](worst, limit):
            reason = gettext(
                "The clause says %(found)g %(quantity)s; the playbook wants %(op)s %(limit)g."
            )
            findings.append(
                Finding(
                    rule,
                    article,
                    reason % {"found": worst, "quantity": quantity, "op": op, "limit": limit},
                )
            )
    return findings


# Windows of a long article read by a position rule (the rest is in its stored embedding).
POSITION_WINDOWS = 8


def _clause_similarities(vectors: Any, scope: list[Article], encode: Encode) -> list[Any | None]:
    """Each article's best cosine to each wording: its stored embedding carries the contract's
    title and parties, so the clause's own text is read too, and a long one in windows (the
    wording may be one clause among several). None for an article not embedded yet."""
    pieces = [
        (index, text)
        for index, article in enumerate(scope)
        if article.embedding is not None
        for text in [article.text, *windows(article.text)[:POSITION_WINDOWS]]
    ]
    if not pieces:
        return [None] * len(scope)
    encoded = np.asarray(encode([text for _, text in pieces]), dtype=np.float32)
    best: list[Any] = [
        None if a.embedding is None else vectors @ np.asarray(a.embedding, dtype=np.float32)
        for a in scope
    ]
    for (index, _), vector in zip(pieces, encoded, strict=True):
        best[index] = np.maximum(vectors @ vector, best[index])
    return best


def _position(
    rule: RuleView, scope: list[Article], encode: Encode, encode_clauses: Encode
) -> list[Finding]:
    wordings = [rule.params["preferred"], *rule.params.get("fallbacks", [])]
    unacceptable = list(rule.params.get("unacceptable", []))
    vectors = np.asarray(encode(wordings + unacceptable), dtype=np.float32)
    findings = []
    for article, similarity in zip(
        scope, _clause_similarities(vectors, scope, encode_clauses), strict=True
    ):
        if similarity is None:
            continue
        accepted = similarity[: len(wordings)]
        refused = similarity[len(wordings) :]
        if refused.size and float(refused.max()) >= UNACCEPTABLE_MATCH:
            reason = gettext("The clause reads like a wording the playbook refuses (%(score).2f).")
            findings.append(Finding(rule, article, reason % {"score": float(refused.max())}))
        elif float(accepted[0]) >= POSITION_MATCH:
            continue
        elif accepted.size > 1 and float(accepted[1:].max()) >= POSITION_MATCH:
            n = int(accepted[1:].argmax()) + 1
            reason = gettext("The clause matches fallback %(n)d, not the preferred wording.")
            findings.append(Finding(rule, article, reason % {"n": n}))
        else:
            reason = gettext(
                "The clause departs from the preferred wording and its fallbacks "
                "(closest %(score).2f)."
            )
            findings.append(Finding(rule, article, reason % {"score": float(accepted.max())}))
    return findings


def _clearest(rule: RuleView, scope: list[Article]) -> list[Article]:
    """The article that shows the clause best: a numbered article before the preamble (whose
    title may name the type), then the classifier's most confident, then the first."""
    if not scope:
        return []
    return [
        max(
            scope,
            key=lambda a: (bool(a.article_ref), a.confidences.get(rule.clause_type, 0.0)),
        )
    ]


def _check_rule(
    rule: RuleView,
    scope: list[Article],
    outcome: Outcome,
    encoders: tuple[Encode, Encode],
    ask: Callable[[RuleView, Article], Finding | None] | None,
    clock: PatternClock,
    kind: CustomType | None = None,
) -> None:
    if rule.kind == RuleKind.REQUIRED and not scope:
        reason = gettext("No %(type)s clause was found.") % {"type": _type_words(rule)}
        outcome.findings.append(Finding(rule, None, reason))
    elif rule.kind == RuleKind.PROHIBITED:
        reason = gettext("The contract has a %(type)s clause.") % {"type": _type_words(rule)}
        outcome.findings += [Finding(rule, a, reason) for a in _clearest(rule, scope)]
    elif rule.kind in {RuleKind.KEYWORD, RuleKind.REGEX}:
        try:
            outcome.findings += _text_rule(rule, scope, clock)
        except PatternTooSlow:
            outcome.too_slow.append(rule.key)
    elif rule.kind == RuleKind.THRESHOLD:
        outcome.findings += _threshold(rule, scope, kind)
    elif rule.kind == RuleKind.POSITION:
        outcome.findings += _position(rule, scope, *encoders)
    elif rule.kind == RuleKind.LLM:
        if ask is None:
            outcome.skipped.append(rule.key)
        else:
            outcome.findings += [f for a in scope if (f := ask(rule, a)) is not None]


def check_contract(
    rules: list[RuleView],
    articles: list[Article],
    *,
    encode: Encode,
    ask: Callable[[RuleView, Article], Finding | None] | None,
    encode_clauses: Encode | None = None,
    custom: dict[str, CustomType] | None = None,
    timings: Timings | None = None,
    read_in_text: Mapping[str, int | None] | None = None,
    amendment: bool = False,
    presence: Mapping[str, float] | None = None,
) -> Outcome:
    """Every rule on one contract's articles. ``ask`` answers llm rules (None: no LLM, the
    rule is skipped with the reason); ``encode`` encodes rule wordings (cached),
    ``encode_clauses`` articles' texts in one batch (default: ``encode``); ``timings``, when
    given, adds up where time goes.
    ``read_in_text``: clause types whose clause extraction read in the text (a governing law
    quoted in the viewer), with the chunk quoting it (None: not known): a required rule
    counts the type as present, and the quoting article is in every rule's scope of that
    type (:mod:`compliance.facts`). An ``amendment`` is
    checked on what it writes: a clause it does not restate stays in the contract it amends,
    so no required rule is checked on it. ``presence``: per clause type, the confidence a
    tagged article needs to count as one (the classifier's; see :func:`of_type`).
    Regex rules and cues share one time budget on the contract: a rule past it, or of a type
    whose cue is past it, is in ``too_slow``, not checked."""
    outcome = Outcome()
    clock = PatternClock()
    facts = read_in_text or {}
    scopes: dict[str, list[Article] | None] = {}  # each type classified once
    for rule in rules:
        began = time.perf_counter()
        scope = _scope(rule, articles, (custom, presence), clock, scopes, facts)
        classified = time.perf_counter()
        if scope is None:
            outcome.too_slow.append(rule.key)
        else:
            if rule.kind == RuleKind.REQUIRED and (amendment or rule.clause_type in facts):
                continue  # present: extraction quoted it, or the amended contract holds it
            encoders = (encode, encode_clauses or encode)
            kind = (custom or {}).get(rule.clause_type)
            _check_rule(rule, scope, outcome, encoders, ask, clock, kind)
        if timings is not None:
            timings.classify += classified - began
            timings.rules += time.perf_counter() - classified
    return outcome


def _scope(
    rule: RuleView,
    articles: list[Article],
    types: tuple[dict[str, CustomType] | None, Mapping[str, float] | None],
    clock: PatternClock,
    scopes: dict[str, list[Article] | None],
    facts: Mapping[str, int | None],
) -> list[Article] | None:
    """The articles ``rule`` reads, classified once per type and contract (a cue is a firm's
    pattern), with the article quoting the type's fact, in the contract's order; None when
    the type's cue is past its time."""
    if not rule.clause_type:
        return articles
    if rule.clause_type not in scopes:
        try:
            found = of_type(articles, rule.clause_type, types[0], clock, types[1])
        except PatternTooSlow:
            scopes[rule.clause_type] = None
        else:
            quoting = facts.get(rule.clause_type)
            chosen = {a.chunk_id for a in found} | {quoting}
            scopes[rule.clause_type] = [a for a in articles if a.chunk_id in chosen]
    return scopes[rule.clause_type]


def excerpt(article: Article | None) -> str:
    return "" if article is None else article.text[:EXCERPT_CHARS]
