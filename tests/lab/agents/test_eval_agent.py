"""eval_agent: skipped (exit 0) without Ollama; with one, every question asked and scored."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command

from tests.helpers.agent import final
from tests.helpers.data import shared_data

pytestmark = pytest.mark.django_db


def test_without_ollama_the_eval_says_so_and_is_skipped(settings):
    settings.OLLAMA_URL, settings.LEXROOM_LLM_RETRIES = "http://127.0.0.1:9", 0
    out = StringIO()
    call_command("eval_agent", "--suite", "brenalis", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["skipped"] is True and "127.0.0.1:9" in report["reason"]


def test_a_model_that_always_abstains_scores_only_the_unanswerable_questions(ollama):
    shared_data("dataroom-brenalis", "exemple_data_room.json")
    abstain = final(answer="Je ne sais pas.", confidence="abstain", missing="tout",
                    escalate_to="l'associé")  # fmt: skip
    ollama(*([{"content": "Pas d'outil."}, abstain] * 8))
    out = StringIO()
    call_command("eval_agent", "--suite", "brenalis", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["skipped"] is False and len(report["questions"]) == 8
    assert report["abstention_accuracy"] == 0.25  # the two questions the room cannot answer
    assert report["precision"] is None and report["recall"] == 0.0
    assert all(row["tokens_in"] > 0 for row in report["questions"])
