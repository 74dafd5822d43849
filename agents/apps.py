from __future__ import annotations

from django.apps import AppConfig


class AgentsConfig(AppConfig):
    name = "agents"

    def ready(self) -> None:
        # The agent offers itself as the ``ask`` tool. Registered from here, not by the
        # registry's loader: the agent imports the registry, never the other way round.
        from agents import ask_tool  # noqa: F401
