"""llm_status [--json]: the local models' status, and a health check for scripts (exit 0 or 1)."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.template.defaultfilters import filesizeformat
from django.utils import timezone
from django.utils.translation import gettext as _

from agents.status import (
    ConfiguredModel,
    EmbeddingStatus,
    LlmStatus,
    OllamaStatus,
    llm_status,
)

INDENT = "  "  # a model's lines under its server's


class Command(BaseCommand):
    help = (
        "Show the local models' status: Ollama's version, the models pulled and loaded, "
        "whether LEXROOM_LLM_MODEL (and LEXROOM_LLM_FAST_MODEL when set) is pulled with tool "
        "support, and for embeddings the model, the device, free/total GPU memory and the "
        "models loaded in this process (none: the command loads nothing). Exit status 0 when "
        "Ollama answers and every configured model is pulled with tool support, 1 otherwise, "
        "so it can serve as a health check."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--json", action="store_true", help="Print the status as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        status = llm_status()
        if options["json"]:
            report = status.model_dump(mode="json")
            self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))
        else:
            for line in status_lines(status):
                self.stdout.write(line)
        if not status.healthy:
            sys.exit(1)


def status_lines(status: LlmStatus) -> list[str]:
    """The report in words, one fact a line, problems last."""
    lines = _ollama_lines(status.ollama) + _embedding_lines(status.embeddings)
    if status.healthy:
        lines.append(
            _("OK: Ollama answers and the configured models are pulled with tool support.")
        )
    lines += [_("Problem: %(problem)s") % {"problem": problem} for problem in status.problems]
    return lines


def _ollama_lines(ollama: OllamaStatus) -> list[str]:
    if not ollama.reachable:
        return [_("Ollama %(url)s: not answering") % {"url": ollama.url}]
    names = {"url": ollama.url, "version": ollama.version}
    lines = [_("Ollama %(url)s: version %(version)s") % names]
    for pulled in ollama.pulled:
        facts = [_size(pulled.size)]
        if pulled.details and pulled.details.parameter_size:
            facts.append(pulled.details.parameter_size)
        facts.append(_("modified %(date)s") % {"date": _when(pulled.modified_at)})
        lines.append(
            INDENT
            + _("pulled: %(model)s (%(facts)s)")
            % {"model": pulled.model, "facts": ", ".join(facts)}
        )
    for loaded in ollama.loaded:
        lines.append(
            INDENT
            + _("loaded: %(model)s (%(size)s in GPU memory, until %(date)s)")
            % {
                "model": loaded.model,
                "size": _size(loaded.size_vram),
                "date": _when(loaded.expires_at),
            }
        )
    return lines + [_configured_line(model) for model in ollama.configured]


def _configured_line(model: ConfiguredModel) -> str:
    facts = [_("pulled") if model.pulled else _("not pulled")]
    if model.pulled:
        facts.append(_("loaded") if model.loaded else _("not loaded"))
        facts.append(_("tools: %(answer)s") % {"answer": _yes_no(model.tools)})
    return f"{model.name} ({model.setting}): {', '.join(facts)}"


def _embedding_lines(embeddings: EmbeddingStatus) -> list[str]:
    cuda = _yes_no(embeddings.cuda_available)
    lines = [
        _("Embeddings: %(model)s on %(device)s (CUDA: %(cuda)s)")
        % {"model": embeddings.model, "device": embeddings.device, "cuda": cuda}
    ]
    for gpu in embeddings.gpus:
        lines.append(
            INDENT
            + _("GPU %(index)s (%(name)s): %(free)s free of %(total)s")
            % {
                "index": gpu.index,
                "name": gpu.name,
                "free": _size(gpu.free_bytes),
                "total": _size(gpu.total_bytes),
            }
        )
    if embeddings.gpu_error:
        lines.append(
            INDENT + _("GPU memory unreadable: %(error)s") % {"error": embeddings.gpu_error}
        )
    resident = ", ".join(f"{m.name} ({m.kind}, {m.device})" for m in embeddings.resident)
    lines.append(
        INDENT + _("loaded in this process: %(models)s") % {"models": resident or _("none")}
    )
    return lines


def _size(size: int | None) -> str:
    # filesizeformat joins number and unit with a no-break space, meant for HTML.
    return "—" if size is None else filesizeformat(size).replace("\xa0", " ")


def _yes_no(answer: bool | None) -> str:
    if answer is None:
        return _("unknown")
    return _("yes") if answer else _("no")


def _when(moment: datetime | None) -> str:
    if moment is None:
        return "—"
    return (timezone.localtime(moment) if timezone.is_aware(moment) else moment).strftime(
        "%Y-%m-%d %H:%M"
    )
