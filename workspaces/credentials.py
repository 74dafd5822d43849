"""Which credential is acting: the personal token behind the current API or MCP call.

Set by the API layer (after DRF authenticated a token) and by the tool registry; read by
:func:`workspaces.audit.audit_record`, so every write made with a token records the
token's id without each service having to pass it along.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workspaces.models import PersonalToken

_acting_token: ContextVar[int | None] = ContextVar("lexroom_acting_token", default=None)


def acting_token_id() -> int | None:
    """The id of the token the current call was made with (None for sessions, tasks, CLI)."""
    return _acting_token.get()


@contextmanager
def acting_token(token: PersonalToken | None) -> Iterator[None]:
    """Mark the block as done with ``token`` (no-op for None: the outer value stays)."""
    if token is None:
        yield
        return
    reset = _acting_token.set(token.pk)
    try:
        yield
    finally:
        _acting_token.reset(reset)
