"""ask "question" --workspace SLUG --user EMAIL [--mode M] [--conversation ID] [--json]

The chat agent from the shell, through the ``ask`` tool (same checks, scope and audit as the
chat page, MCP and REST): prints the answer with its citations substituted and a summary of
the trace. Exit status 0 for an answer, 1 for an abstention, a pending approval or a failed
turn (Ollama down…), 2 for bad arguments.
"""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext as _

from agents.models import Mode
from agents.tools import ToolError, call_tool
from workspaces.models import User


class Command(BaseCommand):
    help = "Ask the chat agent a question about a workspace (answer with checked citations)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("question", help="The question, in your words.")
        parser.add_argument("--workspace", required=True, help="Workspace slug.")
        parser.add_argument("--user", required=True, help="Email of the user asking.")
        parser.add_argument("--mode", choices=Mode.values, default=Mode.ANSWER)
        parser.add_argument("--conversation", type=int, help="Continue this conversation.")
        parser.add_argument("--json", action="store_true", help="Print the result as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        user = User.objects.filter(email=options["user"].strip().lower(), is_active=True).first()
        if user is None:
            message = _("No active user %(email)s.") % {"email": options["user"]}
            self._fail({"error": "not_found", "message": message})
        arguments: dict[str, Any] = {
            "workspace": options["workspace"],
            "question": options["question"],
            "mode": options["mode"],
        }
        if options["conversation"] is not None:
            arguments["conversation_id"] = options["conversation"]
        try:
            result = call_tool(name="ask", arguments=arguments, user=user, via="cli").content
        except ToolError as exc:
            self._fail(exc.as_dict())
        if options["json"]:
            self.stdout.write(json.dumps(result, ensure_ascii=False, indent=2))
        else:
            self._print(result)
        if result["status"] != "done" or result["confidence"] == "abstain":
            sys.exit(1)

    def _print(self, result: dict[str, Any]) -> None:
        write = self.stdout.write
        if result["error"]:
            write(_("Failed: %(error)s") % {"error": result["error"]})
        if result["unsourced"]:
            write(_("Model only: not from the data room's documents, no source."))
        if result["answer"]:
            write(result["answer"])
        if result["confidence"] == "abstain":
            write(_("Missing: %(missing)s") % {"missing": result["missing"]})
            write(_("Ask: %(who)s") % {"who": result["escalate_to"]})
        if result["approval_needed"]:
            pending = result["approval_needed"]
            write(_("Waiting for your approval of %(tool)s %(arguments)s on %(url)s")
                  % {"tool": pending["tool"], "arguments": json.dumps(pending["arguments"]),
                     "url": pending["url"]})  # fmt: skip
        for citation in result["citations"]:
            where = " — ".join(
                str(part)
                for part in (citation["contract_id"], citation["title"], citation["heading"])
                if part
            )
            page = f" p. {citation['page']}" if citation["page"] else ""
            write(f"[{citation['n']}] {where}{page}  {citation['url']}")
        trace = result["trace"]
        cost = "-" if trace["cost"] is None else f"{trace['cost']:.6f} {trace['currency']}"
        write(_("Trace: %(models)d model calls, %(tools)d tool calls, %(tin)d/%(tout)d tokens, "
                "%(ms).0f ms, cost %(cost)s (%(url)s)")
              % {"models": trace["model_calls"], "tools": trace["tool_calls"],
                 "tin": trace["tokens_in"], "tout": trace["tokens_out"],
                 "ms": trace["duration_ms"], "cost": cost, "url": result["trace_url"]})  # fmt: skip

    def _fail(self, body: dict[str, Any]) -> NoReturn:
        self.stdout.write(json.dumps(body, ensure_ascii=False, indent=2))
        sys.exit(2)
