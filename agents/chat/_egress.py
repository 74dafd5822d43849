"""What the agent may do with its tools in one answer: how many calls, and what may leave the
server.

The model writes the tool calls, and a model reads documents that may carry instructions:
left alone, one reply asked 120 case-law searches (about a thousand requests to the Conseil
d'État's site), each query free to carry a contract's words. So the calls of one reply and of
one answer are counted (``LEXROOM_AGENT_TOOL_CALLS_PER_REPLY``, ``…_PER_ANSWER``), a firm may
turn the public sites off (``Firm.agent_external_sites``), and what goes to a public site is a
short query (``LEXROOM_AGENT_EXTERNAL_QUERY_WORDS`` words, ``…_CHARS`` characters) that copies
no run of ``SHINGLE_WORDS`` words from what the tools read of the firm's documents.

A call refused here is not run; the model reads why in the tool's result, so it can answer
with what it has, and the trace shows it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

from django.conf import settings

from agents.chat._caselaw import CASE_LAW_TOOLS
from agents.chat._law import LAW_TOOLS

# The tools that send the model's words to a site outside the server (saving a decision
# fetches it too).
EXTERNAL_TOOLS = CASE_LAW_TOOLS | {"save_decision"}
# Public sources read locally or publicly: their results are no firm's documents.
PUBLIC_TOOLS = LAW_TOOLS | CASE_LAW_TOOLS
SHINGLE_WORDS = 8
_WORD = re.compile(r"\w+")
_JSON_ESCAPE = re.compile(r"\\[nrtu]")


def reply_refusal(position: int) -> dict[str, Any] | None:
    """The refusal of a reply's call at ``position`` (from 0) past the per-reply cap."""
    cap = settings.LEXROOM_AGENT_TOOL_CALLS_PER_REPLY
    if position < cap:
        return None
    return {
        "error": "too_many_calls",
        "message": f"Not run: at most {cap} tool calls per reply. Use the results you have; "
        "ask for fewer, more precise calls if you still need one.",
    }


def answer_refusal(calls_run: int) -> dict[str, Any] | None:
    """The refusal of any call once the answer has run its cap of calls."""
    cap = settings.LEXROOM_AGENT_TOOL_CALLS_PER_ANSWER
    if calls_run < cap:
        return None
    return {
        "error": "tool_budget_spent",
        "message": f"Not run: this answer has used its {cap} tool calls. Answer now with the "
        "results you have, or abstain saying what is missing.",
    }


def external_refusal(
    name: str, arguments: dict[str, Any], *, allowed: bool, read: Iterable[str]
) -> dict[str, Any] | None:
    """Why a call to a public site may not go out (None: it may): the firm turned the
    sites off, a query too long, or words copied from what the tools read of the documents."""
    if name not in EXTERNAL_TOOLS:
        return None
    if not allowed:
        return {
            "error": "external_sites_off",
            "message": "Not run: this firm does not let the assistant query public sites. "
            "Answer from the data room and the codes.",
        }
    words_cap = settings.LEXROOM_AGENT_EXTERNAL_QUERY_WORDS
    chars_cap = settings.LEXROOM_AGENT_EXTERNAL_QUERY_CHARS
    texts = list(_strings(arguments))
    for text in texts:
        if len(text) > chars_cap or len(_WORD.findall(text)) > words_cap:
            return {
                "error": "query_too_long",
                "message": f"Not run: a query to a public site has at most {words_cap} words "
                f"and {chars_cap} characters. Use the key legal terms of the question, never "
                "a document's text.",
                "allowed": {"words": words_cap, "characters": chars_cap},
            }
    if _copies(texts, read):
        return {
            "error": "query_copies_documents",
            "message": f"Not run: the query repeats {SHINGLE_WORDS} or more words of the "
            "firm's documents, which must not leave the server. Use the key legal terms of "
            "the question.",
        }
    return None


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _words(text: str) -> list[str]:
    decomposed = unicodedata.normalize("NFKD", _JSON_ESCAPE.sub(" ", text))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _WORD.findall(plain.casefold())


def _shingles(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + SHINGLE_WORDS]) for i in range(len(words) - SHINGLE_WORDS + 1)}


def _copies(texts: list[str], read: Iterable[str]) -> bool:
    """Whether the query's words hold a run of ``SHINGLE_WORDS`` words of ``read``."""
    asked = set().union(*(_shingles(_words(text)) for text in texts)) if texts else set()
    if not asked:
        return False
    return any(asked & _shingles(_words(passage)) for passage in read)
