"""call_tool NAME '<json args>' --workspace SLUG --user EMAIL: a tool call from the shell.

Prints the result JSON; invalid arguments print the error JSON and exit with status 2.
"""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext as _

from agents.tools import REGISTRY, ToolError, call_tool
from agents.tools.registry import _load
from workspaces.models import User


class Command(BaseCommand):
    help = "Call a Lexroom tool (the same as over MCP and REST) and print its JSON result."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="Tool name, e.g. search_data_room.")
        parser.add_argument("arguments", nargs="?", default="{}", help="JSON object.")
        parser.add_argument("--workspace", help="Workspace slug (added to the arguments).")
        parser.add_argument("--user", required=True, help="Email of the user to act as.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            arguments = json.loads(options["arguments"])
        except json.JSONDecodeError as exc:
            message = _("Not JSON: %(error)s") % {"error": exc}
            self._fail({"error": "invalid_arguments", "message": message})
        if not isinstance(arguments, dict):
            message = _("Arguments must be a JSON object.")
            self._fail({"error": "invalid_arguments", "message": message})
        if options["workspace"] and _takes_workspace(options["name"]):
            arguments.setdefault("workspace", options["workspace"])
        elif options["workspace"]:
            # Its input model forbids extra fields, so passing the flag on would refuse the
            # call; a script that always passes --workspace keeps working, and is told.
            notice = _("%(tool)s works outside workspaces: --workspace %(slug)s is ignored.")
            self.stderr.write(notice % {"tool": options["name"], "slug": options["workspace"]})
        user = User.objects.filter(email=options["user"].strip().lower(), is_active=True).first()
        if user is None:
            message = _("No active user %(email)s.") % {"email": options["user"]}
            self._fail({"error": "not_found", "message": message})
        try:
            result = call_tool(name=options["name"], arguments=arguments, user=user, via="cli")
        except ToolError as exc:
            self._fail(exc.as_dict())
        self.stdout.write(json.dumps(result.content, ensure_ascii=False, indent=2, default=str))

    def _fail(self, body: dict[str, Any]) -> NoReturn:
        self.stdout.write(json.dumps(body, ensure_ascii=False, indent=2))
        sys.exit(2)


def _takes_workspace(name: str) -> bool:
    """Whether tool ``name`` has a ``workspace`` argument (an unknown name: yes, and the call
    says the name is unknown)."""
    _load()
    tool = REGISTRY.get(name)
    return tool is None or "workspace" in tool.input_model.model_fields
