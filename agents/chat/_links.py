"""Links and images in an answer: what the model writes is shown by the chat page and by MCP
clients that render markdown, and a rendered image is fetched at once, with whatever its
address holds (a document's words, put there by a prompt injected in a document).

An answer carries no raw HTML: every tag, comment, declaration and processing instruction is
taken out (the words between tags stay), whatever its name or attributes, since a renderer
fetches through many (``style="background:url(…)"``, ``background=``, ``<track src>``…).
Markdown images (inline or reference-style) are dropped; a link keeps its address only when it
is relative (the app's own pages) or to a host of ``LEXROOM_ANSWER_LINK_HOSTS`` (the public law
sites the product cites), named by a plain host name; any other link keeps its words, and a
bare or angle-bracketed address to another host is dropped.
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
# CommonMark's autolinks (``<scheme:…>``, ``<name@host>``): links, not tags, left to the
# address checks. Each match stops at the next "<", ">" or space: linear over a text.
_AUTOLINK_AHEAD = re.compile(
    r"<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*|[\w.!#$%&'*+/=?^`{|}~-]+@[A-Za-z0-9.-]+)>"
)
_PLAIN_NETLOC = re.compile(r"[a-z0-9.-]+(?::[0-9]{1,5})?", re.IGNORECASE)
_UNSEEN = re.compile(r"[\s\x00-\x1f\x7f]")  # a browser drops tabs and newlines in a URL
_AUTOLINK = re.compile(r"<((?:[a-z][a-z0-9+.-]*:|//)[^>\s]*)>", re.IGNORECASE)
_LAST_WORD = re.compile(r"\S*$")
_BARE = re.compile(r"(?:\b(?:https?|ftp)://|\bwww\.)[^\s<>()\[\]\"']+", re.IGNORECASE)


@dataclass
class Removed:
    images: int = 0
    links: int = 0
    tags: int = 0  # raw HTML: tags, comments, declarations, processing instructions

    @property
    def total(self) -> int:
        return self.images + self.links + self.tags


def allowed(url: str) -> bool:
    """A relative address of the app, or one on an allowed host over http(s)."""
    url = url.strip()
    if not url:
        return True
    if _UNSEEN.search(url):
        return False
    parts = urlsplit(url if not url.lower().startswith("www.") else f"https://{url}")
    if not parts.scheme and not parts.netloc:
        # "/w/…", "?page=2", "#n1": the app's own pages. "\\host" and "//host" are not.
        return not url.startswith(("\\", "//", "/\\")) and ":" not in url.split("/", 1)[0]
    if parts.scheme.lower() not in {"http", "https"} or not parts.hostname:
        return False
    # A browser reads "\\" as "/", decodes "%2e", and drops "user@": what urlsplit calls the
    # host is then not the one visited. Only a plain name (and port) is believed.
    if not _PLAIN_NETLOC.fullmatch(parts.netloc):
        return False
    host = parts.hostname.lower().rstrip(".")
    return any(
        host == allowed_host or host.endswith(f".{allowed_host}")
        for allowed_host in (h.lower().strip(".") for h in settings.LEXROOM_ANSWER_LINK_HOSTS)
    )


def _opens_markup(text: str, at: int) -> bool:
    """Does a "<" just before ``at`` open markup for a browser or a markdown renderer?"""
    following = text[at : at + 1]
    if following in {"!", "?"}:
        return True
    if following == "/":
        following = text[at + 1 : at + 2]
    return following.isascii() and following.isalpha()


def without_html(text: str) -> tuple[str, int]:
    """``text`` without tags, comments, declarations or processing instructions (the words
    between tags stay), and how many were taken out. One pass, linear in the text.

    "a < b" and "<3" are text (no tag name follows the "<"); so is "<<" (French quotes
    written with two signs), a space put after it where a name follows ("<<cité>>" becomes
    "<< cité>>"), or a renderer would read the tag "<cité>". An autolink (``<https://…>``) is
    left to the address checks. An opening never closed loses its "<".
    """
    pieces: list[str] = []
    never: dict[str, int] = {}  # closer -> a position after which it is nowhere
    removed = start = 0
    while (at := text.find("<", start)) >= 0:
        pieces.append(text[start:at])
        start = at + 1
        if text.startswith("<<", at):
            pieces.append("<< " if _opens_markup(text, at + 2) else "<<")
            start = at + 2
            continue
        if not _opens_markup(text, at + 1) or _AUTOLINK_AHEAD.match(text, at):
            pieces.append("<")
            continue
        removed += 1
        closer = "-->" if text.startswith("<!--", at) else ">"
        closer = "]]>" if text.startswith("<![CDATA[", at) else closer
        end = -1 if at >= never.get(closer, len(text) + 1) else text.find(closer, at + 2)
        if end < 0:
            never[closer] = min(at, never.get(closer, at))
            continue  # never closed: the "<" goes, the rest is text
        start = end + len(closer)
    pieces.append(text[start:])
    return "".join(pieces), removed


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

    text, removed.tags = without_html(text)
    text = _IMAGE.sub(image, text)
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
    for opener, closer in (("[", "]"), ("(", ")"), ("<", ">"), ("<!--", "-->")):
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
