"""The agent's evaluation drives the same scripted fake Ollama as the agent's own tests."""

from __future__ import annotations

from tests.agents.conftest import ollama

__all__ = ["ollama"]
