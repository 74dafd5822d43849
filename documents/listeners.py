"""What apps above documents may listen to, without documents importing them.

Search keeps its BM25 word statistics current this way: it registers one
:class:`IndexListener` in its ``AppConfig.ready``. Each method is called inside the writing
transaction, in the workspace's tenant scope, so a listener's writes commit or roll back
with the change it follows.
"""

from __future__ import annotations

from typing import Protocol


class IndexListener(Protocol):
    def chunks_removing(self, *, workspace_id: int, document_id: int | None) -> None:
        """A document's chunks (``None``: every document of the workspace) are about to go."""

    def chunks_indexed(self, *, workspace_id: int, document_id: int) -> None:
        """A document's new chunks are stored with their full-text vectors."""

    def workspace_analyzed(self, *, workspace_id: int) -> None:
        """The workspace's amendment links and duplicate groups were just recomputed."""


_listeners: list[IndexListener] = []


def index_listener_register(listener: IndexListener) -> None:
    """Add ``listener`` once (``ready()`` may run again, in tests)."""
    if not any(type(known) is type(listener) for known in _listeners):
        _listeners.append(listener)


def index_listeners() -> tuple[IndexListener, ...]:
    return tuple(_listeners)


def chunks_removing(*, workspace_id: int, document_id: int | None) -> None:
    for listener in _listeners:
        listener.chunks_removing(workspace_id=workspace_id, document_id=document_id)


def chunks_indexed(*, workspace_id: int, document_id: int) -> None:
    for listener in _listeners:
        listener.chunks_indexed(workspace_id=workspace_id, document_id=document_id)


def workspace_analyzed(*, workspace_id: int) -> None:
    for listener in _listeners:
        listener.workspace_analyzed(workspace_id=workspace_id)
