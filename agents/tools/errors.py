"""The one error every tool surface reports: what went wrong, in words, with the allowed values."""

from __future__ import annotations

from typing import Any


class ToolError(Exception):
    """A call the tool cannot honour. ``kind``: invalid_arguments, unknown_tool, not_found,
    forbidden, rate_limited, unavailable (a model or Ollama cannot answer)."""

    def __init__(
        self,
        kind: str,
        message: str,
        details: dict[str, Any] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.details = details or {}
        self.retry_after = retry_after
        # False for the repeats of a refusal already audited (a client hammering past its
        # rate limit must not turn each refused call into a database write).
        self.audited = True

    def as_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"error": self.kind, "message": self.message}
        if self.details:
            body["details"] = self.details
        if self.retry_after is not None:
            body["retry_after"] = round(self.retry_after, 1)
        return body
