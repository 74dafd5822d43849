"""Links and images in an answer: what the model writes is shown by the chat page and by MCP
clients that render markdown, and a rendered image is fetched at once, with whatever its
address holds (a document's words, put there by a prompt injected in a document).

Images (markdown, reference-style or HTML) are dropped; a link keeps its address only when
it is relative (the app's own pages) or to a host of ``LEXROOM_ANSWER_LINK_HOSTS`` (the public
law sites the product cites); any other link keeps its words, and a bare or angle-bracketed
address to another host is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

_IMAGE = re.compile(r"!\[[^\]\n]*\]\s*(?:\([^)\n]*\)?|\[[^\]\n]*\])")
_LINK = re.compile(r"\[([^\]\n]*)\]\(\s*<?([^)\s>]*)>?(?:\s+[\"'(][^)\n]*)?\s*\)")
_DEFINITION = re.compile(r"^[ \t]*\[[^\]\n]+\]:[ \t]*<?(\S*?)>?(?:[ \t]+.*)?$", re.MULTILINE)
# Tags that fetch something when rendered, or link: dropped whole (a link's words stay).
_FETCHING_TAG = re.compile(
    r"<\s*/?\s*(?:img|image|picture|source|svg|iframe|frame|object|embed|video|audio|link|"
    r"meta|script|style|base|form|input|a)\b[^>]*>?",
    re.IGNORECASE,
)
_AUTOLINK = re.compile(r"<((?:[a-z][a-z0-9+.-]*:|//)[^>\s]*)>", re.IGNORECASE)
_LAST_WORD = re.compile(r"\S*$")
_BARE = re.compile(r"(?:\b(?:https?|ftp)://|\bwww\.)[^\s<>()\[\]\"']+", re.IGNORECASE)


@dataclass
class Removed:
    images: int = 0
    links: int = 0

    @property
    def total(self) -> int:
        return self.images + self.links


def allowed(url: str) -> bool:
    """A relative address of the app, or one on an allowed host over http(s)."""
    url = url.strip()
    if not url:
        return True
    parts = urlsplit(url if not url.lower().startswith("www.") else f"https://{url}")
    if not parts.scheme and not parts.netloc:
        # "/w/…", "?page=2", "#n1": the app's own pages. "\\host" and "//host" are not.
        return not url.startswith(("\\", "//", "/\\")) and ":" not in url.split("/", 1)[0]
    if parts.scheme.lower() not in {"http", "https"} or not parts.hostname:
        return False
    host = parts.hostname.lower().rstrip(".")
    return any(
        host == allowed_host or host.endswith(f".{allowed_host}")
        for allowed_host in (h.lower().strip(".") for h in settings.LEXROOM_ANSWER_LINK_HOSTS)
    )


def safe_links(text: str) -> tuple[str, Removed]:
    """``text`` without images and without addresses outside the allow-list."""
    removed = Removed()

    def image(match: re.Match[str]) -> str:
        removed.images += 1
        return ""

    def link(match: re.Match[str]) -> str:
        if allowed(match.group(2)):
            return match.group(0)
        removed.links += 1
        return match.group(1)

    def address(match: re.Match[str]) -> str:
        if allowed(match.group(1) if match.groups() else match.group(0)):
            return match.group(0)
        removed.links += 1
        return ""

    def tag(match: re.Match[str]) -> str:
        if re.match(r"<\s*/?\s*a\b", match.group(0), re.IGNORECASE):
            removed.links += 1
        else:
            removed.images += 1
        return ""

    text = _IMAGE.sub(image, text)
    text = _FETCHING_TAG.sub(tag, text)
    text = _LINK.sub(link, text)
    text = _DEFINITION.sub(address, text)
    text = _AUTOLINK.sub(address, text)
    text = _BARE.sub(address, text)
    return text, removed


def _stable_end(text: str) -> int:
    """How much of a text still being written can be shown: not its last word (an address
    may be growing) nor anything from a bracket, parenthesis or tag still open."""
    last_word = _LAST_WORD.search(text)
    cut = last_word.start() if last_word else len(text)
    for opener, closer in (("[", "]"), ("(", ")"), ("<", ">")):
        start = text.rfind(opener, 0, cut)
        if start >= 0 and text.find(closer, start, cut) < 0:
            cut = min(cut, start)
    # "![alt]" or "[words]" just closed: a "(address)" may follow.
    while cut and text[:cut].rstrip().endswith("]"):
        cut = text.rfind("[", 0, cut)
        cut = max(cut, 0)
        if cut and text[cut - 1] == "!":
            cut -= 1
    return cut


class SafeStream:
    """The answer's text as it streams, passed on only once it is safe to show:
    ``sink(text, reset)`` gets what follows what it was given, or ``reset`` and everything
    when a later character changed what was shown (an image completed)."""

    def __init__(self, sink: Callable[[str, bool], None]) -> None:
        self.sink = sink
        self.text = ""
        self.shown = ""

    def feed(self, piece: str) -> None:
        self.text += piece
        self._show(self.text[: _stable_end(self.text)])

    def flush(self) -> None:
        self._show(self.text)

    def _show(self, text: str) -> None:
        safe, _removed = safe_links(text)
        if safe == self.shown:
            return
        if safe.startswith(self.shown):
            self.sink(safe[len(self.shown) :], False)
        else:
            self.sink(safe, True)
        self.shown = safe
