"""Notes that apps above documents put beside a contract's articles in the viewer (the
compliance flags), without documents importing them: each registers a provider in its
``AppConfig.ready``; the viewer asks every provider, in the request's tenant scope."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from documents.models import Document


@dataclass(frozen=True)
class ArticleNote:
    kind: str  # what it is, for the page's style: "flag"
    label: str  # e.g. the severity, in the reader's language
    level: str  # info | low | medium | high | critical
    text: str
    url: str = ""  # where to act on it


# Notes by chunk id; None: about the contract as a whole (a missing clause).
NoteProvider = Callable[[Document], dict[int | None, list[ArticleNote]]]
_providers: dict[str, NoteProvider] = {}


def article_note_provider_register(name: str, provider: NoteProvider) -> None:
    _providers[name] = provider  # by name: ready() may run again (tests)


def article_notes(document: Document) -> dict[int | None, list[ArticleNote]]:
    notes: dict[int | None, list[ArticleNote]] = {}
    for provider in _providers.values():
        for chunk_id, found in provider(document).items():
            notes.setdefault(chunk_id, []).extend(found)
    return notes
