"""eval_agent --suite brenalis [--data-dir D] [--json]: the chat agent on a real Ollama.

Without an Ollama answering at OLLAMA_URL with the model pulled, it says so and exits 0 with
``"skipped": true`` (CI has no LLM); see agents/evals/brenalis.py for what is measured.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from agents.llm import main_model
from core.llm import LlmUnavailable, chat_model
from lab.agents.evals import brenalis
from lab.search.evals.suites import EvalOptions, default_data_dir


class Command(BaseCommand):
    help = "Measure the chat agent on the Brenalis data room against the firm's Ollama."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--suite", choices=["brenalis"], default="brenalis")
        parser.add_argument("--data-dir", type=Path, default=None)
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        model = main_model()
        try:
            chat_model().capabilities(model)  # Ollama answers and the model is pulled
        except LlmUnavailable as exc:
            report: dict[str, Any] = {"suite": options["suite"], "skipped": True,
                                      "reason": str(exc), "model": model}  # fmt: skip
        else:
            data_dir = options["data_dir"] or default_data_dir()
            report = brenalis.run(EvalOptions(data_dir=data_dir), model=model)
        if options["json"]:
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
            return
        for key, value in report.items():
            if key != "questions":
                self.stdout.write(f"{key}: {value}")
