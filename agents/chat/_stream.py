"""The answer's text read out of the model's JSON while it is still being written.

The draft is a JSON object whose first key is ``answer`` (Ollama's structured output follows
the schema's order); this reads that string's characters as they arrive, escapes decoded,
so the page can show the answer word by word before the whole object is checked.
"""

from __future__ import annotations

import json
from collections.abc import Callable

_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class AnswerStream:
    def __init__(self, sink: Callable[[str], None]) -> None:
        self.sink = sink
        self.raw = ""
        self._start: int | None = None  # index of the first character of the answer string
        self._read = 0  # characters of the string consumed so far (from _start)
        self.finished = False

    def feed(self, piece: str) -> None:
        self.raw += piece
        if self.finished:
            return
        if self._start is None:
            self._start = _string_start(self.raw)
            if self._start is None:
                return
        text, consumed, self.finished = _decode(self.raw, self._start + self._read)
        self._read += consumed
        if text:
            self.sink(text)


def _string_start(raw: str) -> int | None:
    """Where the value of ``"answer"`` begins (after its opening quote), once it is there."""
    key = raw.find('"answer"')
    if key < 0:
        return None
    rest = raw[key + len('"answer"') :]
    stripped = rest.lstrip()
    if not stripped.startswith(":"):
        return None
    value = stripped[1:].lstrip()
    if not value.startswith('"'):
        return None
    return len(raw) - len(value) + 1


def _decode(raw: str, start: int) -> tuple[str, int, bool]:
    """Characters of the string from ``start`` that are complete: (text, consumed, ended)."""
    out: list[str] = []
    index = start
    while index < len(raw):
        char = raw[index]
        if char == '"':
            return "".join(out), index - start, True
        if char != "\\":
            out.append(char)
            index += 1
            continue
        if index + 1 >= len(raw):
            break  # the escape's second half has not arrived yet
        code = raw[index + 1]
        if code == "u":
            if index + 6 > len(raw):
                break
            try:
                out.append(json.loads(f'"{raw[index : index + 6]}"'))
            except json.JSONDecodeError:
                out.append("\ufffd")
            index += 6
            continue
        out.append(_ESCAPES.get(code, code))
        index += 2
    return "".join(out), index - start, False
