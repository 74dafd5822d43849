"""The one error search raises for a call it cannot honour as asked."""

from __future__ import annotations

from typing import Any


class InvalidSearchArguments(ValueError):
    """Bad arguments: ``details`` says which field and what is allowed, so a model (or a
    person) calling a search tool can correct its call."""

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}


class ResultNotFound(LookupError):
    """A rated article that is missing or outside the workspace: the same answer for both."""
