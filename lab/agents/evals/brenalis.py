"""eval_agent --suite brenalis: the agent against a real Ollama on the Brenalis data room.

The original tool's four reference questions (demo.md), two listings of ours and two
questions the room cannot answer. Per question: the contracts the answer names (ids in its
text and its citations) against the expected set, read off the data room by hand
(precision, recall), whether the ones set apart are mentioned, whether every citation
resolved and every quote was found in the cited text, whether it abstained, tokens, seconds.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from agents.chat import run_turn
from agents.selectors import trace_steps, turn_report
from agents.services import turn_ask
from lab.search.evals import COMMERCIAL_LEASES, EVAL_USER, NO_END_DATE, SIGNED_IN_2025
from lab.search.evals.suites import EvalOptions, run_brenalis
from workspaces.models import User, Workspace
from workspaces.tenancy import workspace_scope

_IDS = re.compile(r"\bc\d{2}\b")


@dataclass(frozen=True)
class Question:
    text: str
    expected: frozenset[str]  # contracts a right answer names
    mention: frozenset[str] = frozenset()  # set apart (undecided, amended): must be named too
    answerable: bool = True
    source: str = "ours"


QUESTIONS = (
    Question("Quels contrats avec le Groupe Brenalis expirent avant fin 2026 ?",
             frozenset({"c04"}), frozenset({*NO_END_DATE, "c09"}), source="demo.md"),
    Question("Lesquels sont régis par un droit étranger ?",
             frozenset({"c05", "c16", "c20"}), frozenset({"c10"}), source="demo.md"),
    Question("Y a-t-il des doublons ?", frozenset({"c11", "c19", "c05", "c20"}), source="demo.md"),
    Question("Un changement de contrôle du Groupe Brenalis aurait-il des conséquences sur ses "
             "contrats ?", frozenset({"c01"}), source="demo.md"),
    Question("Quels contrats ont été signés en 2025 ?", frozenset(SIGNED_IN_2025)),
    Question("Quels sont les baux commerciaux de la data room ?",
             frozenset(COMMERCIAL_LEASES)),
    Question("Quel est le montant de l'indemnité de licenciement prévue par le contrat de "
             "travail du directeur général ?", frozenset(), answerable=False),
    Question("Quelle est la date de l'audience devant le tribunal de commerce dans le litige "
             "opposant Brenalis à Quorvia ?", frozenset(), answerable=False),
)  # fmt: skip


def _named(answer: dict[str, Any]) -> set[str]:
    text = str(answer.get("answer") or "")
    cited = {c["contract_id"] for c in answer.get("citations", [])}
    return set(_IDS.findall(text)) | cited


def _score(question: Question, turn: Any, seconds: float, report: dict[str, Any]) -> dict[str, Any]:
    answer = turn.answer or {}
    abstained = answer.get("confidence") == "abstain" or turn.status != "done"
    named = _named(answer) if not abstained else set()
    right = named & question.expected
    checks = answer.get("checks", {})
    quotes = checks.get("quotes", {})
    quoted = sum(len(quotes.get(k, [])) for k in ("verified", "normalised", "removed"))
    return {
        "question": question.text,
        "source": question.source,
        "status": turn.status,
        "error": turn.error or None,
        "abstained": abstained,
        "abstention_correct": abstained == (not question.answerable),
        "expected": sorted(question.expected),
        "named": sorted(named),
        "precision": round(len(right) / len(named), 3) if named else None,
        "recall": round(len(right) / len(question.expected), 3) if question.expected else None,
        "set_apart_mentioned": sorted(question.mention & named),
        "set_apart_expected": sorted(question.mention),
        "citations": len(answer.get("citations", [])),
        "citations_resolved": not checks.get("dangling_citations"),
        "quotes": quoted,
        "quotes_removed": len(quotes.get("removed", [])),
        "tokens_in": report["tokens_in"],
        "tokens_out": report["tokens_out"],
        "seconds": round(seconds, 1),
    }


def _ask(workspace: Workspace, user: User, question: Question) -> dict[str, Any]:
    started = time.perf_counter()
    turn = turn_ask(workspace=workspace, user=user, question=question.text)
    run_turn(turn, user=user)
    seconds = time.perf_counter() - started
    with workspace_scope(workspace):
        report = turn_report(turn=turn, steps=trace_steps(turn=turn))
    return _score(question, turn, seconds, report)


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def run(options: EvalOptions, *, model: str) -> dict[str, Any]:
    """Index the room (as eval_search does), ask every question, and sum up."""
    run_brenalis(options)  # indexes (or reuses) the eval workspace, and checks search first
    workspace = Workspace.objects.get(slug="eval-brenalis")
    user = User.objects.get(email=EVAL_USER)  # the eval workspace's owner
    rows = [_ask(workspace, user, question) for question in QUESTIONS]
    answered = [r for r in rows if r["precision"] is not None]
    return {
        "suite": "brenalis",
        "skipped": False,
        "model": model,
        "questions": rows,
        "precision": _mean([r["precision"] for r in answered]),
        "recall": _mean([r["recall"] for r in rows if r["recall"] is not None]),
        "abstention_accuracy": _mean([float(r["abstention_correct"]) for r in rows]),
        "citations_resolved": _mean([float(r["citations_resolved"]) for r in rows]),
        "quotes_removed": sum(r["quotes_removed"] for r in rows),
        "tokens_per_answer": _mean([r["tokens_in"] + r["tokens_out"] for r in rows]),
        "seconds_per_answer": _mean([r["seconds"] for r in rows]),
    }
